import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { call, demoOrgs } from './support.ts';

// DRF LimitOffsetPagination, as the live service pages every list.
let api: ReferenceApi;
let path: string;
let abs: string;
beforeAll(async () => {
  api = await startReferenceApi();
  path = `/api/organizations/${demoOrgs(api).hedgehog.id}/batch_exports/`;
  abs = `${api.url}${path}`;
});
afterAll(() => api.close());

describe('pagination', () => {
  it('pages with absolute next/previous links; previous drops offset when it would be <= 0', async () => {
    const first = await call(api, 'GET', `${path}?limit=10`);
    expect(first.body).toMatchObject({ count: 35, next: `${abs}?limit=10&offset=10`, previous: null });
    expect(first.body.results).toHaveLength(10);
    const second = await call(api, 'GET', `${path}?limit=10&offset=10`);
    expect(second.body).toMatchObject({ next: `${abs}?limit=10&offset=20`, previous: `${abs}?limit=10` });
    expect(second.body.results[0].name).toMatch(/ export 11$/);
    const partial = await call(api, 'GET', `${path}?limit=10&offset=5`);
    expect(partial.body.previous).toBe(`${abs}?limit=10`);
    const last = await call(api, 'GET', `${path}?limit=10&offset=25`);
    expect(last.body).toMatchObject({ next: null, previous: `${abs}?limit=10&offset=15` });
    expect(last.body.results).toHaveLength(10);
    const tail = await call(api, 'GET', `${path}?limit=10&offset=30`);
    expect(tail.body.results).toHaveLength(5);
    expect(tail.body.next).toBeNull();
  });

  it('answers an offset past the end with no results and the right count', async () => {
    const { body } = await call(api, 'GET', `${path}?offset=500&limit=20`);
    expect(body).toEqual({ count: 35, next: null, previous: `${abs}?limit=20&offset=480`, results: [] });
  });

  it('falls back to the default limit (100) for a limit that is 0, negative or not an integer', async () => {
    for (const limit of ['0', '-5', 'abc', '2.5', '']) {
      const { body } = await call(api, 'GET', `${path}?limit=${limit}`);
      expect(body.results).toHaveLength(35);
      expect(body.next).toBeNull();
    }
    const { body } = await call(api, 'GET', `${path}?limit=0&offset=30`);
    expect(body.previous).toBe(`${abs}?limit=100`);
  });

  it('treats an invalid offset as 0', async () => {
    for (const offset of ['-3', 'x']) {
      const { body } = await call(api, 'GET', `${path}?limit=5&offset=${offset}`);
      expect(body.previous).toBeNull();
      expect(body.next).toBe(`${abs}?limit=5&offset=5`);
    }
  });

  it('keeps other query parameters, sorted by name and re-encoded, and uses the Host header', async () => {
    const { body } = await call(api, 'GET', `${path}?offset=10&zeta=1&limit=10&alpha=b%20c`);
    expect(body.next).toBe(`${abs}?alpha=b+c&limit=10&offset=20&zeta=1`);
    const viaHost = await call(api, 'GET', `${path}?limit=10`, { headers: { host: 'gateway.example:8443' } });
    expect(viaHost.body.next).toBe(`http://gateway.example:8443${path}?limit=10&offset=10`);
  });

  it('pages a list of 150 records arranged through the store (default limit 100)', async () => {
    const org = api.store.addOrganization({ name: 'Big exporter' }, { owner: 1 });
    for (let i = 0; i < 150; i++) api.store.addBatchExport(org.id, { name: `bulk ${i}` });
    const big = `/api/organizations/${org.id}/batch_exports`;
    const first = await call(api, 'GET', big);
    expect(first.body.results).toHaveLength(100);
    expect(first.body.next).toBe(`${api.url}${big}?limit=100&offset=100`);
    const second = await call(api, 'GET', `${big}?limit=100&offset=100`);
    expect(second.body.results.map((e: any) => e.name).at(-1)).toBe('bulk 149');
    expect(second.body.previous).toBe(`${api.url}${big}?limit=100`);
  });

  it('caps limit (the default too) while maxPageSize is set', async () => {
    api.settings.maxPageSize = 7;
    try {
      const capped = await call(api, 'GET', `${path}?limit=10`);
      expect(capped.body.results).toHaveLength(7);
      expect(capped.body.next).toBe(`${abs}?limit=7&offset=7`);
      expect((await call(api, 'GET', path)).body.results).toHaveLength(7);
      expect((await call(api, 'GET', `${path}?limit=3`)).body.results).toHaveLength(3);
    } finally {
      api.settings.maxPageSize = undefined;
    }
    expect((await call(api, 'GET', path)).body.results).toHaveLength(35);
  });

  it('takes maxPageSize as a start option too', async () => {
    const capped = await startReferenceApi({ maxPageSize: 2 });
    try {
      const { body } = await call(capped, 'GET', '/api/organizations/');
      expect(body.results).toHaveLength(2);
      const exports = await call(capped, 'GET', `/api/organizations/${demoOrgs(capped).hedgehog.id}/batch_exports/?limit=50`);
      expect(exports.body.results).toHaveLength(2);
    } finally {
      await capped.close();
    }
  });
});
