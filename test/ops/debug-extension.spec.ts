// `x-debug-upstream: 1` lists the upstream calls a request made in `extensions.upstreamCalls`:
// method, route template, status, duration, attempts. Never the key, the host or a concrete URL.
import { afterAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.ts';
import { UNKNOWN_UUID } from '../support/ids.ts';
import { captureLogger } from './support.ts';

const harness: Harness = await startHarness({}, { logger: captureLogger().logger });
const off: Harness = await startHarness({}, { logger: captureLogger().logger, debugUpstreamCalls: false });
const DEBUG = { 'x-debug-upstream': '1' };
const QUERY = '{ organizations(first: 2) { nodes { name batchExports(first: 1) { totalCount } } } }';

afterAll(async () => {
  await harness.close();
  await off.close();
});

describe('the debug extension', () => {
  it('lists each upstream call of the request by route template', async () => {
    const result = await harness.runCounting(QUERY, undefined, { headers: DEBUG });
    expect(result.errors).toBeUndefined();
    const calls = (result.body.extensions as { upstreamCalls: any[] }).upstreamCalls;
    expect(calls).toHaveLength(result.calls.length);
    expect(calls).toHaveLength(3);
    expect(calls[0]).toEqual({
      method: 'GET',
      route: '/api/organizations/',
      status: 200,
      durationMs: expect.any(Number),
      attempts: 1,
      outcome: 'ok',
      source: 'upstream',
    });
    expect(calls.slice(1).map((call) => call.route)).toEqual([
      '/api/organizations/:organization_id/batch_exports/',
      '/api/organizations/:organization_id/batch_exports/',
    ]);
  });

  it('shows failed calls with their status, and nothing that locates the upstream or the caller', async () => {
    const result = await harness.run(`{ organization(databaseId: "${UNKNOWN_UUID}") { name } organizations { totalCount } }`, undefined, {
      headers: DEBUG,
    });
    const calls = (result.body.extensions as { upstreamCalls: any[] }).upstreamCalls;
    expect(calls).toContainEqual(expect.objectContaining({ route: '/api/organizations/:id/', status: 404, outcome: 'http' }));
    const text = JSON.stringify(result.body);
    expect(text).not.toContain(harness.api.keys.demo);
    expect(text).not.toContain(harness.api.url);
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain(`${UNKNOWN_UUID}/`);
  });

  it('lists no calls for a request without a key', async () => {
    const result = await harness.run('{ organizations { totalCount } }', undefined, { key: null, headers: DEBUG });
    expect(result.body.extensions).toEqual({ upstreamCalls: [] });
  });

  it('is absent without the header, or with another value', async () => {
    expect((await harness.run(QUERY)).body.extensions).toBeUndefined();
    expect((await harness.run(QUERY, undefined, { headers: { 'x-debug-upstream': 'yes' } })).body.extensions).toBeUndefined();
  });

  it('is absent when DEBUG_UPSTREAM_CALLS is off', async () => {
    expect((await off.run(QUERY, undefined, { headers: DEBUG })).body.extensions).toBeUndefined();
  });
});
