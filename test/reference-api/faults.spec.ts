// The reference API's fault injection, counters and control endpoints (src/reference-api/faults.ts,
// traffic.ts, control.ts): what the benchmarks run on, off unless asked for.
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeJson } from '../../src/reference-api/http.ts';
import { type ReferenceApi, type ReferenceApiOptions, startReferenceApi } from '../../src/reference-api/index.ts';
import { WRONG_SHAPES, wrongShape } from '../../src/reference-api/wrong-shapes.ts';
import { call, demoOrgs } from './support.ts';

const started: ReferenceApi[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((api) => api.close()));
});

async function start(options: ReferenceApiOptions): Promise<ReferenceApi> {
  const api = await startReferenceApi(options);
  started.push(api);
  return api;
}

async function controlCall(api: ReferenceApi, method: 'GET' | 'POST', path: string, body?: unknown) {
  const response = await request(`${api.url}/__control/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.statusCode, body: (await response.body.json()) as any };
}

/** The raw answer to one GET: status, text, and how many chunks the body came in. */
async function rawGet(api: ReferenceApi, path: string, headers: Record<string, string> = {}) {
  const response = await request(`${api.url}${path}`, { headers: { authorization: `Bearer ${api.keys.demo}`, ...headers } });
  let chunks = 0;
  let text = '';
  for await (const chunk of response.body) {
    chunks += 1;
    text += chunk.toString();
  }
  return { status: response.statusCode, headers: response.headers, text, chunks };
}

describe('off by default', () => {
  it('serves no control endpoints and injects nothing without the options', async () => {
    const api = await start({});
    const stats = await request(`${api.url}/__control/stats`, { headers: { authorization: `Bearer ${api.keys.demo}` } });
    expect(stats.statusCode).toBe(404);
    expect(await stats.body.json()).toMatchObject({ code: 'not_found' });
    const config = await request(`${api.url}/__control/config`, { method: 'POST', body: JSON.stringify({ faultRate: 1 }) });
    expect(config.statusCode).toBe(404);
    await config.body.dump();
    expect(api.faults.settings).toMatchObject({ delayMs: 0, faultRate: 0 });
    for (let i = 0; i < 20; i += 1) expect((await call(api, 'GET', '/api/organizations/')).status).toBe(200);
    expect(api.stats().calls).toBe(0); // nothing counted either
  });
});

describe('faults', () => {
  it('delays every answer by delayMs', async () => {
    const api = await start({ faults: { delayMs: 150 } });
    const before = performance.now();
    const answer = await call(api, 'GET', '/api/organizations/');
    expect(performance.now() - before).toBeGreaterThanOrEqual(145);
    expect(answer.status).toBe(200);
    expect(answer.body.count).toBe(2);
  });

  it('http500: a server error body instead of the answer', async () => {
    const api = await start({ faults: { faultRate: 1, faultKinds: ['http500'] } });
    const answer = await call(api, 'GET', '/api/organizations/');
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null });
  });

  it('drop: the connection closes without an answer, after a write was applied', async () => {
    const api = await start({ faults: { faultRate: 1, faultKinds: ['drop'] }, control: true });
    const { hedgehog } = demoOrgs(api);
    const target = [...api.store.batchExports.values()].find((e) => e.organization_id === hedgehog.id && !e.paused);
    if (!target) throw new Error('no unpaused export');
    await expect(call(api, 'POST', `/api/organizations/${hedgehog.id}/batch_exports/${target.id}/pause/`)).rejects.toThrow();
    expect(api.store.batchExports.get(target.id)?.paused).toBe(true);
    expect(api.stats()).toMatchObject({ calls: 1, writes: 1, faults: { drop: 1 }, byStatus: {} });
  });

  it('malformed: the first half of the right answer', async () => {
    const right = await rawGet(await start({}), '/api/organizations/');
    const api = await start({ faults: { faultRate: 1, faultKinds: ['malformed'] } });
    const cut = await rawGet(api, '/api/organizations/');
    expect(cut.status).toBe(200);
    expect(cut.text).toBe(right.text.slice(0, Math.floor(right.text.length / 2)));
    expect(() => JSON.parse(cut.text)).toThrow();
  });

  it('slow: the right answer after slowMs', async () => {
    const right = await rawGet(await start({}), '/api/organizations/');
    const api = await start({ faults: { faultRate: 1, faultKinds: ['slow'], slowMs: 300 } });
    const before = performance.now();
    const slow = await rawGet(api, '/api/organizations/');
    expect(performance.now() - before).toBeGreaterThanOrEqual(295);
    expect(slow.text).toBe(right.text);
  });

  it('drip: the status at once, then the body a byte at a time', async () => {
    const right = await rawGet(await start({}), '/api/organizations/not-an-org/');
    const api = await start({ faults: { faultRate: 1, faultKinds: ['drip'], dripIntervalMs: 2 } });
    const dripped = await rawGet(api, '/api/organizations/not-an-org/');
    expect(dripped.status).toBe(404);
    expect(dripped.text).toBe(right.text);
    expect(dripped.chunks).toBeGreaterThan(1);
  });

  it('wrongShape: well-formed JSON of the wrong shape (or an HTML page, or no body)', async () => {
    const api = await start({ faults: { faultRate: 1, faultKinds: ['wrongShape'] } });
    const right = (await call(await start({}), 'GET', '/api/organizations/')).body;
    for (let i = 0; i < 10; i += 1) {
      const wrong = await rawGet(api, '/api/organizations/');
      expect([200, 204]).toContain(wrong.status);
      expect(wrong.text).not.toBe(JSON.stringify(right));
    }
  });

  it('every wrong shape differs from the answer it is made from', () => {
    const page = encodeJson(200, { count: 1, next: null, previous: null, results: [{ id: 'a', name: 'n', teams: [] }] });
    const record = encodeJson(200, { id: 'a', name: 'n' });
    for (const shape of WRONG_SHAPES) {
      for (const right of [page, record]) {
        const wrong = wrongShape(shape, right);
        expect(wrong.body.equals(right.body), shape).toBe(false);
        expect(wrong.headers['content-length']).toBe(String(wrong.body.length));
      }
    }
    expect(wrongShape('deepJson', page).body.toString()).toContain('['.repeat(5000));
  });

  it('draws the same faults from the same seed', async () => {
    const statuses = async (seed: number) => {
      const api = await start({ faults: { faultRate: 0.5, faultKinds: ['http500'], seed } });
      const seen: number[] = [];
      for (let i = 0; i < 30; i += 1) seen.push((await call(api, 'GET', '/api/organizations/')).status);
      return seen;
    };
    const first = await statuses(7);
    expect(await statuses(7)).toEqual(first);
    expect(first).toContain(500);
    expect(first).toContain(200);
  });
});

describe('control endpoints', () => {
  it('count calls, calls per x-request-id, calls without a valid key, and a write sent twice', async () => {
    const api = await start({ control: true });
    const { hedgehog } = demoOrgs(api);
    await call(api, 'GET', '/api/organizations/', { headers: { 'x-request-id': 'read-1' } });
    await call(api, 'GET', `/api/organizations/${hedgehog.id}/domains/`, { headers: { 'x-request-id': 'read-1' } });
    await call(api, 'GET', '/api/organizations/', { key: 'phx_unknown' });
    const exportId = [...api.store.batchExports.values()].find((e) => e.organization_id === hedgehog.id)?.id;
    const pause = `/api/organizations/${hedgehog.id}/batch_exports/${exportId}/pause/`;
    await call(api, 'POST', pause, { headers: { 'x-request-id': 'write-1' } });
    await call(api, 'POST', pause, { headers: { 'x-request-id': 'write-1' } });
    await call(api, 'POST', pause, { headers: { 'x-request-id': 'write-2' } });

    const { status, body } = await controlCall(api, 'GET', 'stats?ids=1');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      calls: 6,
      badAuth: 1,
      writes: 3,
      requestIdsWithRepeatedWrites: 1,
      byStatus: { 200: 5, 401: 1 },
      perRequestId: { 'read-1': 2, '': 1, 'write-1': 2, 'write-2': 1 },
    });
    expect(body.connections).toBeGreaterThan(0);
    expect((await controlCall(api, 'GET', 'stats')).body.perRequestId).toBeUndefined();

    expect(await controlCall(api, 'POST', 'reset', {})).toEqual({ status: 200, body: { ok: true } });
    expect((await controlCall(api, 'GET', 'stats')).body).toMatchObject({ calls: 0, writes: 0, badAuth: 0, byStatus: {} });
  });

  it('change the fault settings, and refuse bad ones changing nothing', async () => {
    const api = await start({ control: true });
    const changed = await controlCall(api, 'POST', 'config', { faultRate: 1, faultKinds: ['http500'] });
    expect(changed).toMatchObject({ status: 200, body: { faultRate: 1, faultKinds: ['http500'], delayMs: 0 } });
    expect((await call(api, 'GET', '/api/organizations/')).status).toBe(500);
    expect((await controlCall(api, 'GET', 'stats')).body.faults).toMatchObject({ http500: 1 });

    for (const bad of [{ faultRate: 2 }, { faultKinds: ['explode'] }, { delayMs: -1 }, { delayMs: 5, typo: 1 }, [1]]) {
      const refused = await controlCall(api, 'POST', 'config', bad);
      expect(refused.status).toBe(400);
      expect(refused.body.error).toEqual(expect.any(String));
    }
    const malformed = await request(`${api.url}/__control/config`, { method: 'POST', body: '{"faultRate":' });
    expect(malformed.statusCode).toBe(400);
    await malformed.body.dump();
    expect(api.faults.settings).toMatchObject({ faultRate: 1, faultKinds: ['http500'], delayMs: 0 });
    expect((await controlCall(api, 'GET', 'nothing')).status).toBe(404);
  });
});

describe('recordRequests', () => {
  it('keeps no request log when false', async () => {
    const api = await start({ recordRequests: false });
    await call(api, 'GET', '/api/organizations/');
    expect(api.requests).toHaveLength(0);
  });
});

describe('cacheAnswers', () => {
  it('keeps a GET answer per key until a write through the API', async () => {
    const api = await start({ cacheAnswers: true });
    const { hedgehog } = demoOrgs(api);
    const list = `/api/organizations/${hedgehog.id}/batch_exports/?limit=1`;
    const first = (await call(api, 'GET', list)).body.results[0];
    expect(first.paused).toBe(false);

    api.store.batchExports.get(first.id)!.name = 'changed behind the API';
    expect((await call(api, 'GET', list)).body.results[0].name).toBe(first.name); // the kept answer

    await call(api, 'POST', `/api/organizations/${hedgehog.id}/batch_exports/${first.id}/pause/`);
    const after = (await call(api, 'GET', list)).body.results[0];
    expect(after).toMatchObject({ name: 'changed behind the API', paused: true });

    const otherKey = await call(api, 'GET', '/api/organizations/', { key: 'outsider' });
    expect(otherKey.body.results.map((org: { name: string }) => org.name)).toEqual(['Elsewhere Inc']);
    expect((await call(api, 'GET', '/api/organizations/', { key: 'outsider' })).body).toEqual(otherKey.body);
    expect((await call(api, 'GET', '/api/organizations/')).body.count).toBe(2);
  });
});
