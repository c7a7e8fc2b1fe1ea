// A federated router's trace continued through this gateway into the REST calls: Hive Gateway, with
// its own OpenTelemetry plugin, serves a supergraph of this subgraph and sends `traceparent` with
// each subgraph request; this gateway's spans (exported to a receiver on a loopback port) hang
// under the router's subgraph span, and each REST call carries that same trace.
import { createGatewayRuntime, type GatewayRuntime, Logger } from '@graphql-hive/gateway';
import { useOpenTelemetry } from '@graphql-hive/gateway/opentelemetry';
import { openTelemetrySetup } from '@graphql-hive/gateway/opentelemetry/setup';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { composeServices } from '@theguild/federation-composition';
import type { ExecutionResult } from 'graphql';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { type ServedGateway, serveOverHttp } from '../support/http-server.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { fetchSubgraphSdl } from '../support/subgraph-sdl.ts';

const SERVER = 2;
const CLIENT = 3;

let api: ReferenceApi;
let receiver: OtlpReceiver;
let gateway: Gateway;
let subgraph: ServedGateway;
let runtime: GatewayRuntime;
let gatewayOpen = false;
const closeGateway = async () => {
  if (gatewayOpen) await gateway.close();
  gatewayOpen = false;
};
/** The router's spans, kept in memory by its own (global) tracer provider. */
const routerSpans = new InMemorySpanExporter();

beforeAll(async () => {
  api = await startReferenceApi();
  receiver = await startOtlpReceiver();
  gateway = createGateway({ upstreamUrl: api.url, tracing: loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }).tracing });
  gatewayOpen = true;
  subgraph = await serveOverHttp(gateway);

  const composed = composeServices([{ name: 'organizations', typeDefs: await fetchSubgraphSdl(subgraph.url), url: subgraph.url }]);
  expect(composed.errors ?? []).toEqual([]);

  // Hive Gateway's documented OpenTelemetry setup, exporting to memory at once (no batching).
  openTelemetrySetup({ contextManager: null, traces: { exporter: routerSpans, batching: false }, log: new Logger({ level: false }) });
  runtime = createGatewayRuntime({
    supergraph: composed.supergraphSdl as string,
    logging: false,
    plugins: (context) => [useOpenTelemetry({ ...context, traces: true, useContextManager: false })],
    propagateHeaders: { fromClientToSubgraphs: ({ request }) => ({ authorization: request.headers.get('authorization') }) },
  });
});

afterAll(async () => {
  await runtime?.dispose();
  await subgraph?.close();
  await closeGateway();
  await receiver?.close();
  await api?.close();
});

it("continues the router's trace: this gateway's request span is a child of the router's subgraph call, and the REST calls carry its trace", async () => {
  const response = await runtime.fetch('http://router.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${api.keys.demo}` },
    body: JSON.stringify({ query: 'query Orgs { organizations(first: 5) { nodes { name domains { totalCount } } } }' }),
  });
  const body = (await response.json()) as ExecutionResult;
  expect(body.errors).toBeUndefined();
  const restCalls = [...api.requests];
  await closeGateway(); // exports this gateway's spans

  // The router's trace of this request (its start, loading the supergraph, is a trace of its own).
  const routerRequest = routerSpans.getFinishedSpans().find((span) => span.name === 'POST /graphql');
  const traceId = routerRequest?.spanContext().traceId;
  expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  const router = routerSpans.getFinishedSpans().filter((span) => span.spanContext().traceId === traceId);
  // The router's fetch of our subgraph: the span whose context went out in `traceparent`.
  const subgraphFetches = router.filter((span) => span.name === 'http.fetch').map((span) => span.spanContext().spanId);
  expect(subgraphFetches).toHaveLength(1);

  // Every span of this gateway but the composition's `_service` request (a trace of its own) is in the router's trace.
  const ours = receiver.spans().filter((span) => span.attributes['graphql.operation.name'] !== undefined || span.kind === CLIENT);
  expect(ours.every((span) => span.traceId === traceId)).toBe(true);
  const requests = ours.filter((span) => span.kind === SERVER);
  expect(requests).toHaveLength(1);
  expect(requests[0]).toMatchObject({ name: 'graphql.operation query Orgs', traceId, parentSpanId: subgraphFetches[0] });
  const calls = ours.filter((span) => span.kind === CLIENT);
  expect(calls.length).toBeGreaterThan(1);
  expect(calls).toHaveLength(restCalls.length);
  expect(calls.every((span) => span.parentSpanId === requests[0]?.spanId)).toBe(true);
  for (const call of restCalls) expect(call.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
});
