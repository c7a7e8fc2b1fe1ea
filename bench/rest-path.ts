// The gateway without its GraphQL layer: what any way of executing the dashboard would still pay.
// A plain HTTP server (the floor's) answers the dashboard through the compiled gateway's own
// per-request path: its context (src/context.ts) with the caller's REST client, the request
// transport and the loaders, over the gateway's shared transport and circuit breakers, with its
// metrics for every upstream call and for the request, and its request log line. What it leaves
// out is everything GraphQL: Yoga and its plugins, parsing and validation, graphql-jit, the
// resolvers and connections. The answer is assembled by hand, as the floor's is, and must equal it.
// bench/bound.ts runs it beside the gateway and the floor.
//   tsx bench/rest-path.ts --upstream http://127.0.0.1:PORT --log FILE [--port 0]
// prints one JSON line {"url": ...} once listening; POST anything to /graphql.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import type { OperationSummary } from '../src/observability/request-log.ts';
import { distModule } from './lib/processes.ts';

const { values } = parseArgs({
  options: { upstream: { type: 'string' }, log: { type: 'string' }, port: { type: 'string', default: '0' } },
});
if (!values.upstream || !values.log) throw new Error('--upstream and --log are required');

const { DEFAULTS } = (await import(distModule('config.js'))) as typeof import('../src/config.ts');
const { createContext, requestIdOf } = (await import(distModule('context.js'))) as typeof import('../src/context.ts');
const { createGateway } = (await import(distModule('gateway.js'))) as typeof import('../src/gateway.ts');
const { createLogger } = (await import(distModule('observability/logger.js'))) as typeof import('../src/observability/logger.ts');
const { globalIdOf } = (await import(distModule('schema/global-id.js'))) as typeof import('../src/schema/global-id.ts');

const logger = createLogger({ logFile: values.log });
const gateway = createGateway({ upstreamUrl: values.upstream, logger });
const limits = {
  maxCalls: DEFAULTS.MAX_UPSTREAM_CALLS,
  concurrency: DEFAULTS.UPSTREAM_CONCURRENCY_PER_REQUEST,
  deadlineMs: DEFAULTS.REQUEST_DEADLINE_MS,
  maxLookupScanPages: DEFAULTS.MAX_LOOKUP_SCAN_PAGES,
  onCall: (call: Parameters<typeof gateway.metrics.observeUpstreamCall>[0]) => gateway.metrics.observeUpstreamCall(call),
};

type Loaders = ReturnType<typeof createContext>['loaders'];

/** The dashboard's 21 calls through the request's loaders, as its resolvers make them; the floor's JSON. */
async function dashboard(loaders: Loaders) {
  const organizations = await loaders.organizations.page('', 5, 0);
  const nodes = await Promise.all(
    organizations.results.map(async (org) => {
      const [exports, domains, members, destinations] = await Promise.all([
        loaders.batchExports.page(org.id, 10, 0),
        loaders.domains.page(org.id, 5, 0),
        loaders.members.page(org.id, 10, 0),
        loaders.pipeline.pipeline_destinations.page(org.id, 10, 0),
      ]);
      return {
        id: globalIdOf('Organization', [org.id]),
        name: org.name,
        batchExports: {
          nodes: exports.results.map((e) => ({
            id: globalIdOf('BatchExport', [org.id, e.id]),
            name: e.name,
            paused: e.paused,
            interval: e.interval,
          })),
        },
        domains: { nodes: domains.results.map((d) => ({ id: globalIdOf('Domain', [org.id, d.id]), domain: d.domain })) },
        members: {
          nodes: members.results.map((m) => ({
            id: globalIdOf('Member', [org.id, m.id, m.user?.uuid ?? '']),
            user: { email: m.user.email },
          })),
        },
        pipelineDestinations: {
          nodes: destinations.results.map((d) => ({ id: globalIdOf('PipelineDestination', [org.id, d.id]), name: d.name })),
        },
      };
    }),
  );
  return { data: { organizations: { nodes } } };
}

/** What createContext reads of a request: its Authorization header and its abort signal (the client leaving). */
function requestOf(req: IncomingMessage, signal: AbortSignal): Request {
  return { headers: { get: (name: string) => (req.headers[name] as string | undefined) ?? null }, signal } as unknown as Request;
}

const server = createServer(async (req, res) => {
  const receivedAt = performance.now();
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  JSON.parse(Buffer.concat(chunks).toString('utf8')); // read and parsed, as the gateway must
  const left = new AbortController();
  res.once('close', () => left.abort());
  const requestId = requestIdOf((req.headers['x-request-id'] as string | undefined) ?? null);
  const context = createContext(gateway.transport, requestOf(req, left.signal), limits, { requestId, receivedAt });
  let status = 200;
  let body: unknown;
  try {
    body = await dashboard(context.loaders);
  } catch (error) {
    status = 502;
    body = { errors: [{ message: String(error), extensions: { code: 'UPSTREAM_ERROR' } }] };
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/graphql-response+json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'x-request-id': requestId,
  });
  res.end(text);
  // The request's metrics and log line, with the fields the gateway's (src/observability/request-log.ts) has.
  const summary: OperationSummary = {
    requestId,
    operation: 'Dashboard',
    operationType: 'query',
    status,
    durationMs: Math.round((performance.now() - receivedAt) * 10) / 10,
    upstreamCalls: context.upstreamCalls.length,
    upstreamRetries: context.upstreamCalls.reduce((n, call) => n + call.attempts - 1, 0),
    cacheHits: 0,
    coalescedCalls: 0,
    outcome: status === 200 ? 'ok' : 'error',
    errorCodes: status === 200 ? [] : ['UPSTREAM_ERROR'],
  };
  gateway.metrics.observeOperation(summary);
  logger.info(summary, 'graphql request');
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
