// Prometheus metrics at /metrics: operations, upstream calls by route template, retries, the circuit
// breaker's state and the process metrics, each gateway in its own registry.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { Gateway } from '../../src/gateway.ts';
import { EXAMPLE_QUERY } from '../../src/graphiql/example-query.ts';
import { upstreamCallSeries } from '../../src/observability/upstream-call-series.ts';
import { startReferenceApi } from '../../src/reference-api/index.ts';
import type { UpstreamCall } from '../../src/upstream/transport/request-transport.ts';
import { sendJson } from '../support/scripted-answers.ts';
import { gatewayFactory, postGraphQL } from './support.ts';

const api = await startReferenceApi();
const gateways = gatewayFactory({ upstreamUrl: api.url });
const scripted = await startReferenceApi();
const page = (results: unknown[]) => ({ count: results.length, next: null, previous: null, results });

const gateway = gateways.build;

async function scrape(target: Gateway): Promise<string> {
  const response = await target.yoga.fetch('http://gateway.test/metrics');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

const run = (target: Gateway, query: string, key?: string) =>
  postGraphQL(target.yoga.fetch as (url: string, init: RequestInit) => Promise<Response>, query, { key });

afterAll(async () => {
  await gateways.closeAll();
  await api.close();
  await scripted.close();
});

describe('/metrics', () => {
  it('counts operations by name and outcome, and upstream calls by method, route template and status', async () => {
    const calls: UpstreamCall[] = [];
    const target = gateway({ onUpstreamCall: (call) => calls.push(call) });
    expect((await run(target, EXAMPLE_QUERY, api.keys.demo)).body.errors).toBeUndefined();
    await run(target, '{ organizations { totalCount } }');

    const text = await scrape(target);
    expect(text).toContain('gateway_graphql_operations_total{operation="Dashboard",outcome="ok"} 1');
    expect(text).toContain('gateway_graphql_operation_duration_seconds_count{operation="Dashboard",outcome="ok"} 1');
    // Without a key: no name of its own (an anonymous operation with a key is `anonymous`).
    expect(text).toContain('gateway_graphql_operations_total{operation="unverified",outcome="error"} 1');
    expect(text).toContain('gateway_graphql_errors_total{code="UNAUTHENTICATED"} 1');
    expect(text).toContain('gateway_upstream_requests_total{method="GET",route="/api/organizations/",status="200"} 1');
    expect(text).toContain(
      'gateway_upstream_requests_total{method="GET",route="/api/organizations/:organization_id/batch_exports/",status="200"} 2',
    );
    expect(text).toMatch(
      /gateway_upstream_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/api\/organizations\/",status="200"\} \d/,
    );
    // The duration histogram holds exactly the calls the gateway reported, in cumulative buckets.
    const listCalls = calls.filter((call) => call.route === '/api/organizations/:organization_id/batch_exports/');
    const series = 'method="GET",route="/api/organizations/:organization_id/batch_exports/",status="200"';
    const sampleOf = (line: string) =>
      Number(
        text
          .split('\n')
          .find((candidate) => candidate.startsWith(`${line} `))
          ?.slice(line.length + 1),
      );
    const bucket = (le: string) => sampleOf(`gateway_upstream_request_duration_seconds_bucket{le="${le}",${series}}`);
    expect(bucket('+Inf')).toBe(listCalls.length);
    expect(bucket('0.1')).toBe(listCalls.filter((call) => call.durationMs / 1000 <= 0.1).length);
    expect(sampleOf(`gateway_upstream_request_duration_seconds_count{${series}}`)).toBe(listCalls.length);
    const sum = listCalls.reduce((total, call) => total + call.durationMs / 1000, 0);
    expect(sampleOf(`gateway_upstream_request_duration_seconds_sum{${series}}`)).toBeCloseTo(sum, 9);
    expect(text).toContain('gateway_upstream_circuit_state{route="*"} 0');
    // The process's own metrics ride along.
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    // Only templates: no concrete id, no host, no key.
    expect(text).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-/);
    expect(text).not.toContain(api.url);
    expect(text).not.toContain(api.keys.demo);
    // The onUpstreamCall option sees the same calls.
    expect(calls.length).toBeGreaterThan(5);
    expect(calls[0]).toMatchObject({ method: 'GET', route: '/api/organizations/', status: 200, attempts: 1, outcome: 'ok' });
  });

  it('counts GET retries by route, and the status of the final answer', async () => {
    let sent = 0;
    scripted.answerWith((_req, res) => {
      sent += 1;
      if (sent === 1) return sendJson(res, 503, { detail: 'try again' });
      return sendJson(res, 200, page([]));
    });
    const target = gateway({ upstreamUrl: scripted.url, upstreamGetRetries: 1 });
    const result = await run(target, '{ organizations { totalCount } }', 'phx_metrics_test_key');
    expect(result.body.data.organizations.totalCount).toBe(0);

    const text = await scrape(target);
    expect(text).toContain('gateway_upstream_retries_total{method="GET",route="/api/organizations/"} 1');
    expect(text).toContain('gateway_upstream_requests_total{method="GET",route="/api/organizations/",status="200"} 1');
  });

  it('follows the circuit breakers by route (`*`: the whole upstream): 0 closed, 2 open', async () => {
    scripted.answerWith((_req, res) => sendJson(res, 500, { detail: 'down' }));
    const target = gateway({
      upstreamUrl: scripted.url,
      upstreamGetRetries: 0,
      circuitBreaker: { volumeThreshold: 1, errorThresholdPercentage: 1, resetTimeoutMs: 60_000 },
      metricsCacheMs: 0, // scraped before and after
    });
    expect(await scrape(target)).toContain('gateway_upstream_circuit_state{route="*"} 0');
    await run(target, '{ organizations { totalCount } }', 'phx_metrics_test_key');
    expect(target.transport.state('/api/organizations/')).toBe('open');
    const text = await scrape(target);
    expect(text).toContain('gateway_upstream_circuit_state{route="/api/organizations/"} 2');
    expect(text).toContain('gateway_upstream_circuit_state{route="*"} 0'); // a read's 5xx pauses its route only
    expect(text).toContain('gateway_upstream_requests_total{method="GET",route="/api/organizations/",status="500"} 1');

    // Calls refused by the open circuit have no status: they count under their failure kind.
    await run(target, '{ organizations { totalCount } }', 'phx_metrics_test_key');
    expect(await scrape(target)).toContain(
      'gateway_upstream_requests_total{method="GET",route="/api/organizations/",status="circuit-open"} 1',
    );
  });

  it("writes upstream calls as prom-client's own counter and histogram would", async () => {
    const bounds = [0.005, 0.01, 0.1, 1];
    const labelNames = ['method', 'route', 'status'] as const;
    const call = fc.record({
      method: fc.constantFrom('GET', 'POST', 'DELETE'),
      route: fc.constantFrom('/api/organizations/', '/api/organizations/:organization_id/members/'),
      status: fc.constantFrom('200', '404', 'timeout'),
      // On the bounds, between and past them.
      seconds: fc.oneof(fc.constantFrom(0, ...bounds), fc.double({ min: 0, max: 3, noNaN: true })),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { maxLength: 40 }), async (calls) => {
        const ours = new Registry();
        const series = upstreamCallSeries(ours, {
          requests: { name: 'calls_total', help: 'Calls.' },
          duration: { name: 'call_seconds', help: 'Call durations.' },
          upperBounds: bounds,
        });
        const theirs = new Registry();
        const counter = new Counter({ name: 'calls_total', help: 'Calls.', labelNames, registers: [theirs] });
        const histogram = new Histogram({
          name: 'call_seconds',
          help: 'Call durations.',
          labelNames,
          buckets: bounds,
          registers: [theirs],
        });
        for (const { method, route, status, seconds } of calls) {
          series.observe(method, route, status, seconds);
          counter.inc({ method, route, status });
          histogram.observe({ method, route, status }, seconds);
        }
        expect(await ours.metrics()).toBe(await theirs.metrics());
        // The names and values configuration-docs.spec.ts reads (prom-client adds empty exemplars).
        const json = async (registry: Registry) =>
          (await registry.getMetricsAsJSON()).map(({ name, type, values }) => ({
            name,
            type,
            values: values.map(({ labels, value }) => ({ labels, value })),
          }));
        expect(await json(ours)).toEqual(await json(theirs));
        ours.resetMetrics();
        theirs.resetMetrics();
        expect(await ours.metrics()).toBe(await theirs.metrics());
      }),
    );
  });

  it('keeps each gateway in its own registry', async () => {
    const first = gateway();
    const second = gateway();
    await run(first, 'query One { organizations { totalCount } }', api.keys.demo);
    expect(await scrape(first)).toContain('gateway_graphql_operations_total{operation="One",outcome="ok"} 1');
    expect(await scrape(second)).not.toContain('operation="One"');
  });

  it('is not served when METRICS_ENABLED is off', async () => {
    const target = gateway({ metricsEnabled: false });
    expect((await target.yoga.fetch('http://gateway.test/metrics')).status).toBe(404);
    expect(target.metricsListener).toBeUndefined();
  });

  it('serves a scrape within METRICS_CACHE_MS of the last rendering from it, and renders again after', async () => {
    const target = gateway({ metricsCacheMs: 300 });
    const render = vi.spyOn(target.metrics, 'render');
    const first = await scrape(target);
    await run(target, 'query Later { organizations { totalCount } }', api.keys.demo);
    // Four clients at once, and again: one rendering, the same text.
    const during = await Promise.all(Array.from({ length: 4 }, () => scrape(target)));
    for (const text of during) expect(text).toBe(first);
    expect(first).not.toContain('operation="Later"');
    expect(render).toHaveBeenCalledTimes(1);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await scrape(target)).toContain('gateway_graphql_operations_total{operation="Later",outcome="ok"} 1');
    expect(render).toHaveBeenCalledTimes(2);
  });

  it('with METRICS_PORT, is served by a listener of its own, and no longer on the gateway port', async () => {
    const target = gateway({ metricsListen: { port: 9464, host: '127.0.0.1' }, metricsCacheMs: 0 });
    await run(target, 'query Own { organizations { totalCount } }', api.keys.demo);
    expect((await target.yoga.fetch('http://gateway.test/metrics')).status).toBe(404);
    // What main.ts does with METRICS_PORT and METRICS_HOST (here on a free loopback port).
    const server = createServer(target.metricsListener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const response = await fetch(`${base}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      expect(await response.text()).toContain('gateway_graphql_operations_total{operation="Own",outcome="ok"} 1');
      expect((await fetch(`${base}/metrics`, { method: 'HEAD' })).status).toBe(200);
      expect((await fetch(`${base}/graphql`, { method: 'POST', body: '{}' })).status).toBe(404);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
