// Resilience against a misbehaving upstream the test controls: the circuit breaker fails fast while
// the upstream is down and probes it back, 4xx answers never trip it, the per-request deadline
// bounds a slow upstream, and one request runs only so many calls at once.
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway.ts';
import { createGatewayServer } from '../../src/http/server.ts';
import { type FakeUpstream, sendJson, startFakeUpstream } from '../support/fake-upstream.ts';

const ORG = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbb1';
const page = (results: unknown[]) => ({ count: results.length, next: null, previous: null, results });

let upstream: FakeUpstream | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function setUp(options: Partial<GatewayOptions>) {
  upstream = await startFakeUpstream();
  gateway = createGateway({ upstreamUrl: upstream.url, upstreamGetRetries: 0, ...options });
  return { upstream, gateway };
}

async function run(g: Gateway, query: string) {
  const response = await g.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer phx_resilience_key' },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as { data?: any; errors?: any[] };
}

describe('the circuit breaker', () => {
  it('opens after repeated upstream failures, fails fast without sending, then probes and closes', async () => {
    const { upstream, gateway } = await setUp({ circuitBreaker: { volumeThreshold: 4, errorThresholdPercentage: 50, resetTimeoutMs: 300 } });
    let healthy = false;
    upstream.handle((_req, res) => (healthy ? sendJson(res, 200, page([])) : sendJson(res, 503, {})));

    for (let i = 0; i < 4; i++) expect((await run(gateway, '{ organizations { totalCount } }')).errors?.[0]?.extensions?.upstreamStatus).toBe(503);
    expect(upstream.requests).toHaveLength(4);
    expect(gateway.transport.state()).toBe('open');

    const fast = await run(gateway, '{ organizations { totalCount } }');
    expect(fast.errors?.[0]).toMatchObject({ extensions: { code: 'UPSTREAM_ERROR' }, message: expect.stringMatching(/paused/) });
    const write = await run(gateway, 'mutation { createOrganization(input: { name: "x" }) { __typename } }');
    expect(write.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    expect(upstream.requests).toHaveLength(4); // nothing was sent while open, the POST included

    healthy = true;
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect((await run(gateway, '{ organizations { totalCount } }')).data).toEqual({ organizations: { totalCount: 0 } });
    expect(gateway.transport.state()).toBe('closed');
    expect(upstream.requests).toHaveLength(5);
  });

  it('does not count answers about the request (404, 403) as upstream failures', async () => {
    const { upstream, gateway } = await setUp({ circuitBreaker: { volumeThreshold: 2, errorThresholdPercentage: 10 } });
    upstream.handle((_req, res) => sendJson(res, 404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null }));
    for (let i = 0; i < 6; i++) await run(gateway, `{ organization(databaseId: "${ORG}") { name } }`);
    expect(gateway.transport.state()).toBe('closed');
    expect(upstream.requests).toHaveLength(6);
  });
});

describe('per-request bounds', () => {
  it('a slow upstream past REQUEST_DEADLINE_MS is UPSTREAM_TIMEOUT', async () => {
    const { upstream, gateway } = await setUp({ requestDeadlineMs: 200, upstreamTimeoutMs: 10_000 });
    upstream.handle((_req, res) => setTimeout(() => sendJson(res, 200, page([])), 4000));
    const started = Date.now();
    const { errors } = await run(gateway, '{ organizations { totalCount } }');
    expect(errors?.[0]?.extensions?.code).toBe('UPSTREAM_TIMEOUT');
    // The deadline clock sweeps every 20 ms: the deadline holds to a fraction of a second.
    expect(Date.now() - started).toBeLessThan(200 + 400);
  });

  it('cancels the upstream call in flight when the client goes away (over HTTP)', async () => {
    const { upstream, gateway } = await setUp({});
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((resolve) => (upstreamClosed = resolve));
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    upstream.handle((_req, res) => {
      res.on('close', upstreamClosed); // never answered: only the gateway can end it (or its 10 s timeout)
      received();
    });
    const server = createGatewayServer(gateway.yoga);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new AbortController();
      const call = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer phx_resilience_key' },
        body: JSON.stringify({ query: '{ organizations { totalCount } }' }),
        signal: client.signal,
      }).catch(() => 'aborted');
      await arrived;
      const abortedAt = performance.now();
      client.abort();
      expect(await call).toBe('aborted');
      await closed;
      expect(performance.now() - abortedAt).toBeLessThan(1000); // not the 10 s upstream timeout
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('runs at most UPSTREAM_CONCURRENCY_PER_REQUEST calls of one request at once', async () => {
    const { upstream, gateway } = await setUp({ upstreamConcurrencyPerRequest: 2 });
    let inFlight = 0;
    let peak = 0;
    upstream.handle((req, res) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      const results = req.path === '/api/organizations/' ? [{ id: ORG, name: 'Org', teams: [] }] : [];
      setTimeout(() => {
        inFlight -= 1;
        sendJson(res, 200, page(results));
      }, 30);
    });
    const { errors } = await run(gateway, `{ organizations { nodes {
      batchExports { totalCount } domains { totalCount } members { totalCount } invites { totalCount }
      pipelineDestinations { totalCount } pipelineFrontendApps { totalCount } } } }`);
    expect(errors).toBeUndefined();
    expect(upstream.requests).toHaveLength(7);
    expect(peak).toBe(2);
  });
});
