// The gateway without its GraphQL layer: what any way of executing the dashboard would still pay.
// A plain HTTP server (the floor's) answers the dashboard through the compiled gateway's own
// per-request path: its context (src/context.ts) with the caller's REST client, the request
// transport and the loaders, over the gateway's shared transport and circuit breakers, with its
// metrics for every upstream call and for the request, and its request log line. What it leaves
// out is everything GraphQL: Yoga and its plugins, parsing and validation, graphql-jit, the
// resolvers and connections. The answer is assembled by the floor's own code (dashboardAnswer), from
// the loaders' pages and with the gateway's global ids, and must equal the floor's.
// With `--graphql-jit` it answers as the gateway does instead: the request's operation compiled once
// by graphql-jit over the gateway's schema, with its leaf serializers, and executed with that
// context (its resolvers, connections and global ids), with the graphql-jit the gateway compiles with.
// What that leaves out is Yoga's per-request pipeline (its Fetch-API objects, request parsing,
// envelop's hooks, result processing) and the gateway's plugins in it: the limits, admission,
// idempotency, CORS, tracing. Between the two, the gateway's GraphQL layer splits into its
// execution and the pipeline around it.
// bench/bound.ts runs both beside the gateway and the floor.
//   tsx bench/rest-path.ts --upstream http://127.0.0.1:PORT --log FILE [--port 0] [--graphql-jit]
// (the benchmarks run it compiled: `startCompiledScript` in lib/processes.ts)
// prints one JSON line {"url": ...} once listening; POST anything to /graphql.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { parse } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import type { OperationSummary } from '../src/observability/request-log.ts';
import { type DashboardPages, dashboardAnswer, sendAnswer } from './floor.ts';
import { distModule } from './lib/processes.ts';

const { values } = parseArgs({
  options: {
    upstream: { type: 'string' },
    log: { type: 'string' },
    port: { type: 'string', default: '0' },
    'graphql-jit': { type: 'boolean', default: false },
  },
});
if (!values.upstream || !values.log) throw new Error('--upstream and --log are required');

const { DEFAULTS } = (await import(distModule('config.js'))) as typeof import('../src/config.ts');
const { createContext, requestIdOf } = (await import(distModule('context.js'))) as typeof import('../src/context.ts');
const { createGateway } = (await import(distModule('gateway.js'))) as typeof import('../src/gateway.ts');
const { createLogger } = (await import(distModule('observability/logger.js'))) as typeof import('../src/observability/logger.ts');
const { globalIdOf } = (await import(distModule('schema/global-id.js'))) as typeof import('../src/schema/global-id.ts');
const { leafSerializers } = (await import(distModule('schema/leaf-serializers.js'))) as typeof import('../src/schema/leaf-serializers.ts');
const { subgraphSchema } = (await import(distModule('schema/subgraph.js'))) as typeof import('../src/schema/subgraph.ts');

const logger = createLogger({ logFile: values.log });
const gateway = createGateway({ upstreamUrl: values.upstream, logger });
// The summary line skips pino's redaction, as request-log.ts's does (it holds only named fields).
const summaryLog = logger.child({}, { redact: [] });
const limits = {
  maxCalls: DEFAULTS.MAX_UPSTREAM_CALLS,
  concurrency: DEFAULTS.UPSTREAM_CONCURRENCY_PER_REQUEST,
  deadlineMs: DEFAULTS.REQUEST_DEADLINE_MS,
  maxLookupScanPages: DEFAULTS.MAX_LOOKUP_SCAN_PAGES,
  onCall: (call: Parameters<typeof gateway.metrics.observeUpstreamCall>[0]) => gateway.metrics.observeUpstreamCall(call),
};

type Loaders = ReturnType<typeof createContext>['loaders'];

/** The dashboard's 21 calls through the request's loaders, as its resolvers make them. */
const pagesOf = (loaders: Loaders): DashboardPages => ({
  organizations: (limit) => loaders.organizations.page('', limit, 0),
  batchExports: (id, limit) => loaders.batchExports.page(id, limit, 0),
  domains: (id, limit) => loaders.domains.page(id, limit, 0),
  members: (id, limit) => loaders.members.page(id, limit, 0),
  pipelineDestinations: (id, limit) => loaders.pipeline.pipeline_destinations.page(id, limit, 0),
});
/** The gateway's own global-id encoder (the floor restates it). */
const gatewayIdOf = (typename: string, ...parts: (string | number)[]) => globalIdOf(typename, parts);

const jitOptions = { customSerializers: leafSerializers(subgraphSchema, DEFAULTS.MAX_JSON_DEPTH) };
const compiled = new Map<string, CompiledQuery>();
/** The operation compiled once per query text, as the gateway's parse cache and src/compiled-operations.ts keep it. */
function compiledOperation(query: string): CompiledQuery {
  let operation = compiled.get(query);
  if (!operation) {
    const result = compileQuery(subgraphSchema, parse(query), undefined, jitOptions);
    if (!isCompiledQuery(result)) throw new Error(`graphql-jit could not compile the operation: ${JSON.stringify(result.errors)}`);
    operation = result;
    compiled.set(query, operation);
  }
  return operation;
}

/** What createContext reads of a request: its Authorization header and its abort signal (the client leaving). */
function requestOf(req: IncomingMessage, signal: AbortSignal): Request {
  return { headers: { get: (name: string) => (req.headers[name] as string | undefined) ?? null }, signal } as unknown as Request;
}

const server = createServer(async (req, res) => {
  const receivedAt = performance.now();
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  // Read and parsed, as the gateway must.
  const params = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { query: string; variables?: Record<string, unknown> };
  // As Yoga's node adapter does: the signal aborts only if the client leaves before the answer is
  // sent (aborting on every close would cost each request a DOMException the gateway does not pay).
  const left = new AbortController();
  const onClose = () => left.abort();
  res.once('close', onClose);
  res.once('finish', () => res.off('close', onClose));
  const requestId = requestIdOf((req.headers['x-request-id'] as string | undefined) ?? null);
  const context = createContext(gateway.transport, requestOf(req, left.signal), limits, { requestId, receivedAt });
  const status = await sendAnswer(res, requestId, () =>
    values['graphql-jit']
      ? Promise.resolve(compiledOperation(params.query).query(undefined, context, params.variables ?? {}))
      : dashboardAnswer(pagesOf(context.loaders), gatewayIdOf),
  );
  // The request's metrics and log line, with the fields the gateway's (src/observability/request-log.ts) has.
  const summary: OperationSummary = {
    requestId,
    operation: 'Dashboard',
    operationType: 'query',
    status,
    durationMs: Math.round((performance.now() - receivedAt) * 10) / 10,
    // As request-log.ts's tally counts them; no cache is configured here, so every call went upstream.
    upstreamCalls: context.upstreamCalls.length,
    upstreamRetries: context.upstreamCalls.reduce((n, call) => n + call.attempts - 1, 0),
    cacheHits: 0,
    coalescedCalls: 0,
    outcome: status === 200 ? 'ok' : 'error',
    errorCodes: status === 200 ? [] : ['UPSTREAM_ERROR'],
    keyAccepted: context.upstreamCalls.some((call) => call.status !== undefined && call.status !== 401),
  };
  gateway.metrics.observeOperation(summary);
  summaryLog.info(summary, 'graphql request');
});
server.keepAliveTimeout = 65_000;
await new Promise<void>((resolve) => server.listen(Number(values.port), '127.0.0.1', resolve));
console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql` }));
const stop = () => {
  server.closeAllConnections();
  server.close();
  void gateway.close().then(() => process.exit(0));
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
