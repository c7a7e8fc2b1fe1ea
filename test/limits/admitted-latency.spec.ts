// MAX_ADMITTED_LATENCY_MS: an admitted request is expected to end within it of its arrival, its
// wait for admission included. A request whose turn has not come in time is refused with
// OVERLOADED then, with no upstream call, rather than served late; with the bound at its default
// (the longest wait plus a tenth of the deadline) the same request waits and is served. Against the
// reference API answering in 2 s, with an admission capacity of one call.
import { afterEach, expect, it } from 'vitest';
import type { GatewayOptions } from '../../src/gateway.ts';
import { type HttpHarness, startHttpHarness } from '../support/http-server.ts';

const UPSTREAM_DELAY_MS = 2000;
const QUERY = JSON.stringify({ query: '{ organizations(first: 1) { nodes { name } } }' });

let harness: HttpHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: Partial<GatewayOptions>) {
  harness = await startHttpHarness(
    { faults: { delayMs: UPSTREAM_DELAY_MS } },
    { admissionCapacity: 1, admissionMaxWaitMs: 10_000, upstreamGetRetries: 0, ...options },
  );
  const { url, api } = harness;
  const post = async () => {
    const startedAt = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${api.keys.demo}` },
      body: QUERY,
    });
    const body = (await response.json()) as { data?: unknown; errors?: { extensions: { code: string } }[] };
    return { status: response.status, body, tookMs: performance.now() - startedAt };
  };
  return { api, post };
}

it('refuses a queued request when its turn has not come in time, with no upstream call', async () => {
  // Before any request has ended a hold is assumed to be 1 s: the second request's predicted wait (1 s)
  // plus a hold fits 2.5 s, so it is queued; the first holds the capacity 2 s, so its turn (at 1.5 s, a hold before the bound) would come too late.
  const { api, post } = await start({ maxAdmittedLatencyMs: 2500 });
  const first = post();
  await expect.poll(() => api.requests.length).toBe(1);
  const second = await post();
  expect(second.status).toBe(503);
  expect(second.body.errors?.[0]?.extensions.code).toBe('OVERLOADED');
  expect(second.tookMs).toBeLessThan(UPSTREAM_DELAY_MS);
  expect((await first).status).toBe(200);
  expect(api.requests).toHaveLength(1);
  expect(await harness?.gateway.metrics.registry.getSingleMetricAsString('gateway_admission_refused_total')).toMatch(
    /\{reason="deadline"\} 1$/m,
  );
});

it('serves the same request after its wait when the bound has room for it', async () => {
  const { api, post } = await start({});
  const first = post();
  await expect.poll(() => api.requests.length).toBe(1);
  const second = await post();
  expect(second.status).toBe(200);
  expect(second.tookMs).toBeGreaterThanOrEqual(UPSTREAM_DELAY_MS);
  expect((await first).status).toBe(200);
  expect(api.requests).toHaveLength(2);
});
