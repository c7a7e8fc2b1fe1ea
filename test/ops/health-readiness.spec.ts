// /health answers while the process is up. /readiness answers 200 while this instance can serve and
// 503 once shutdown has begun; the upstream's health (reachable or not, probed without a key, and the
// circuit breakers that are not closed) is information in its body, never a 503: an upstream outage
// hits every instance alike, and the load balancer must not take them all out at once.
import { afterAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway.ts';
import { startReferenceApi } from '../../src/reference-api/index.ts';
import { refusedUrl } from '../support/refused-url.ts';
import { sendJson } from '../support/scripted-answers.ts';
import { gatewayFactory, postGraphQL } from './support.ts';

const api = await startReferenceApi();
const gateways = gatewayFactory({ upstreamUrl: api.url });
const scripted = await startReferenceApi();

const gateway = gateways.build;

async function get(target: Gateway, path: string) {
  const response = await target.yoga.fetch(`http://gateway.test${path}`);
  const text = await response.text();
  return {
    status: response.status,
    body: (text ? JSON.parse(text) : {}) as { status?: string; reason?: string; upstream?: object },
    headers: response.headers,
  };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

afterAll(async () => {
  await gateways.closeAll();
  await api.close();
  await scripted.close();
});

describe('/health', () => {
  it('answers 200 even when the upstream is down', async () => {
    const target = gateway({ upstreamUrl: await refusedUrl() });
    expect((await get(target, '/health')).status).toBe(200);
  });
});

describe('/readiness', () => {
  it('is ready when the upstream answers, and probes it without any key', async () => {
    const target = gateway();
    // A caller's request first, so a key has been seen by this gateway.
    await postGraphQL(target.yoga.fetch as (url: string, init: RequestInit) => Promise<Response>, '{ organizations { totalCount } }', {
      key: api.keys.demo,
    });
    api.clearRequests();
    const response = await get(target, '/readiness');
    expect(response).toMatchObject({ status: 200, body: { status: 'ready', upstream: { reachable: true, circuits: [] } } });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(api.requests).toHaveLength(1);
    expect(api.requests[0]).toMatchObject({ method: 'GET', path: '/api/organizations/' });
    expect(api.requests[0]?.headers.authorization).toBeUndefined();
    expect(JSON.stringify(api.requests[0]?.headers)).not.toContain(api.keys.demo);
  });

  it('counts any answer as reachable, a 5xx included (the circuit breakers judge failures)', async () => {
    scripted.answerWith((_req, res) => sendJson(res, 503, { detail: 'maintenance' }));
    expect(await get(gateway({ upstreamUrl: scripted.url }), '/readiness')).toMatchObject({
      status: 200,
      body: { upstream: { reachable: true } },
    });
  });

  it('keeps a path prefix of UPSTREAM_URL', async () => {
    scripted.requests.length = 0;
    scripted.answerWith((_req, res) => sendJson(res, 401, { detail: 'no key' }));
    expect((await get(gateway({ upstreamUrl: `${scripted.url}/prefix` }), '/readiness')).status).toBe(200);
    expect(scripted.requests.map((r) => r.path)).toEqual(['/prefix/api/organizations/']);
  });

  it('stays 200 when the upstream cannot be reached, and says so', async () => {
    const response = await get(gateway({ upstreamUrl: await refusedUrl() }), '/readiness');
    expect(response).toEqual({
      status: 200,
      body: { status: 'ready', upstream: { reachable: false, reason: 'the upstream could not be reached', circuits: [] } },
      headers: expect.anything(),
    });
  });

  it('stays 200 when the upstream does not answer in time, and says so', async () => {
    scripted.answerWith((_req, res) => setTimeout(() => sendJson(res, 401, {}), 1000));
    const response = await get(gateway({ upstreamUrl: scripted.url, readinessTimeoutMs: 100 }), '/readiness');
    expect(response).toMatchObject({
      status: 200,
      body: { upstream: { reachable: false, reason: 'the upstream did not answer within 100 ms' } },
    });
  });

  it('answers at once with the last probe while the next one runs: a hanging upstream never slows it', async () => {
    scripted.requests.length = 0;
    scripted.answerWith((_req, res) => sendJson(res, 401, {}));
    const target = gateway({ upstreamUrl: scripted.url, readinessTimeoutMs: 1000 });
    expect((await get(target, '/readiness')).body).toMatchObject({ upstream: { reachable: true } });

    scripted.answerWith(() => undefined); // never answers from now on
    const startedAt = performance.now();
    expect((await get(target, '/readiness')).body).toMatchObject({ upstream: { reachable: true } }); // the last probe's result
    expect(performance.now() - startedAt).toBeLessThan(500);
    await until(() => scripted.requests.length === 2); // the next probe is under way

    await new Promise((resolve) => setTimeout(resolve, 1100));
    scripted.answerWith((_req, res) => sendJson(res, 401, {}));
    expect(await get(target, '/readiness')).toMatchObject({
      status: 200,
      body: { upstream: { reachable: false, reason: 'the upstream did not answer within 1000 ms' } },
    });
    await until(() => scripted.requests.length === 3);
  });

  it('shares one probe between requests that arrive together', async () => {
    scripted.requests.length = 0;
    scripted.answerWith((_req, res) => setTimeout(() => sendJson(res, 401, {}), 50));
    const target = gateway({ upstreamUrl: scripted.url });
    const answers = await Promise.all([1, 2, 3].map(() => get(target, '/readiness')));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(scripted.requests).toHaveLength(1);
  });

  it('stays 200 during an upstream outage, reporting the open circuits, and turns 503 once shutdown begins', async () => {
    const target = gateway({
      upstreamUrl: await refusedUrl(),
      upstreamGetRetries: 0,
      circuitBreaker: { volumeThreshold: 1, errorThresholdPercentage: 1, resetTimeoutMs: 60_000 },
    });
    const outage = await postGraphQL(
      target.yoga.fetch as (url: string, init: RequestInit) => Promise<Response>,
      '{ organizations { totalCount } }',
      {
        key: 'phx_readiness_test_key',
      },
    );
    expect(outage.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    expect(await get(target, '/readiness')).toMatchObject({
      status: 200,
      body: {
        status: 'ready',
        upstream: { reachable: false, reason: 'the upstream could not be reached', circuits: [{ route: '*', state: 'open' }] },
      },
    });
    target.beginShutdown();
    expect(await get(target, '/readiness')).toMatchObject({
      status: 503,
      body: { status: 'unavailable', reason: 'the gateway is shutting down' },
    });
  });

  it("names a read route's open circuit while the upstream itself answers", async () => {
    scripted.answerWith((_req, res) => sendJson(res, 500, {}));
    const target = gateway({
      upstreamUrl: scripted.url,
      upstreamGetRetries: 0,
      circuitBreaker: { volumeThreshold: 1, errorThresholdPercentage: 1, resetTimeoutMs: 60_000 },
    });
    await postGraphQL(target.yoga.fetch as (url: string, init: RequestInit) => Promise<Response>, '{ organizations { totalCount } }', {
      key: 'phx_readiness_test_key',
    });
    scripted.requests.length = 0;
    expect(await get(target, '/readiness')).toMatchObject({
      status: 200,
      body: { status: 'ready', upstream: { reachable: true, circuits: [{ route: '/api/organizations/', state: 'open' }] } },
    });
    expect(scripted.requests).toHaveLength(1); // the keyless probe
    expect(scripted.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('is 503 once shutdown has begun, and responses then close their connection', async () => {
    const target = gateway();
    target.beginShutdown();
    const response = await get(target, '/readiness');
    expect(response).toMatchObject({ status: 503, body: { reason: 'the gateway is shutting down' } });
    expect(response.headers.get('connection')).toBe('close');
    expect((await get(target, '/health')).status).toBe(200);
  });
});
