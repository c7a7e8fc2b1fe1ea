// createGateway(options): the Yoga instance (schema, per-request context, error masking, request
// ids, health) over one shared upstream transport. Every request goes through Yoga's pipeline.

import type { RequestListener, Server } from 'node:http';
import { type ExecutionResult, GraphQLError } from 'graphql';
import { createYoga, type Plugin, type YogaInitialContext, type YogaServerInstance } from 'graphql-yoga';
import { type ConfigOverrides, type GatewayConfig, GRAPHQL_ENDPOINT, resolveConfig } from './config/index.ts';
import { type Arrival, createContext, type GatewayContext, type RequestLimits, requestIdOf } from './context.ts';
import { toGraphQLError, unexpectedError } from './errors/graphql-errors.ts';
import { protocolErrorPlugins } from './errors/protocol-errors.ts';
import { compiledExecutionPlugin, compiledOperations } from './execution/compiled-operations.ts';
import { EXAMPLE_QUERY } from './graphiql/example-query.ts';
import { createLocalGraphiQL } from './graphiql/index.ts';
import { errorBoundary } from './http/error-boundary.ts';
import { createHttpSurface } from './http/index.ts';
import { overCapacityAnswer } from './http/over-capacity.ts';
import { serveWebSocket, type WebSocketEndpoint } from './http/websocket.ts';
import { createIdempotencyMetrics, IDEMPOTENCY_KEY_HEADER, idempotencyPlugin } from './idempotency/index.ts';
import { batching, YOGA_BATCHING } from './incremental/batching.ts';
import { deferStreamPlugins, usesIncrementalDelivery } from './incremental/defer-stream.ts';
import { createAdmission } from './limits/admission.ts';
import { admissionPlugin } from './limits/admission-plugin.ts';
import { bodyLimitPlugin } from './limits/body-limit.ts';
import { estimateUpstreamCalls } from './limits/fan-out.ts';
import { fanOutBudgetPlugin } from './limits/fan-out-plugin.ts';
import { jsonDepthPlugin } from './limits/json-depth.ts';
import { queryLimitPlugins } from './limits/query-limits.ts';
import { responseSizePlugin } from './limits/response-size.ts';
import type { LabelBounds } from './observability/bounded-label.ts';
import { costExtensionPlugin } from './observability/cost-extension.ts';
import { createObservability } from './observability/index.ts';
import type { Logger } from './observability/logger.ts';
import { GATEWAY_LABEL_MAX_LENGTH, type GatewayMetrics } from './observability/metrics.ts';
import { persistedOperations } from './persisted/index.ts';
import { argumentChecksPlugin } from './schema/argument-checks.ts';
import { createDriftWatch, watchingDrift } from './schema/drift-watch.ts';
import { leafSerializers } from './schema/leaf-serializers.ts';
import { subgraphSchema as schema } from './schema/subgraph.ts'; // the public schema plus _service and _entities
import { createSubscriptionHub } from './subscriptions/hub.ts';
import { createSubscriptionMetrics } from './subscriptions/metrics.ts';
import { subscriptionPlugins } from './subscriptions/plugins.ts';
import type { PollRunner } from './subscriptions/watched.ts';
import { createTracing } from './tracing/index.ts';
import { type CircuitBreakerOptions, type GuardedTransport, withCircuitBreakers } from './upstream/resilience/circuit-breaker.ts';
import type { UpstreamCall } from './upstream/transport/request-transport.ts';
import { createUpstreamTransport, transportSettings, type UpstreamTransport } from './upstream/transport/transport.ts';
import { createUpstreamEconomy } from './upstream-economy/index.ts';

/** What createGateway takes: settings (each left out keeps its declared default, src/config), and the parts a caller builds itself. */
export interface GatewayOptions extends Omit<ConfigOverrides, 'upstreamUrl' | 'circuitBreaker'> {
  upstreamUrl: string;
  circuitBreaker?: Partial<CircuitBreakerOptions>;
  /** Filled into GraphiQL's headers: only for the embedded demo API, never for a real upstream. */
  demoKey?: string;
  /** Where GraphiQL's bootstrap script is read. @default src/graphiql/bootstrap.browser.js (dist/ when built); tests point it at a missing one */
  graphiqlBootstrapScript?: URL;
  /** Where the gateway logs. @default the process logger (LOG_LEVEL, LOG_FILE) */
  logger?: Logger;
  /** Yoga plugins to run before the gateway's own (tests inject failures with them). */
  plugins?: Plugin[];
  /** A transport to use instead of building one (tests). */
  transport?: UpstreamTransport;
  /** Told of every finished upstream call, after the metrics. */
  onUpstreamCall?: (call: UpstreamCall) => void;
}

export interface Gateway {
  /** The Node request listener to serve: Yoga behind the error boundary (src/http/error-boundary.ts). */
  listener: RequestListener;
  yoga: YogaServerInstance<Record<string, never>, GatewayContext>;
  /** The upstream transport behind its circuit breakers (their states feed readiness, metrics and logs). */
  transport: GuardedTransport;
  logger: Logger;
  metrics: GatewayMetrics;
  /** Answers a request on a connection past MAX_CONNECTIONS: 503 OVERLOADED, counted (src/http/over-capacity.ts). */
  refuseOverCapacity: RequestListener;
  /** With `metricsListen` (METRICS_PORT): the listener to serve `/metrics` with, on its own port; undefined otherwise. */
  metricsListener: RequestListener | undefined;
  /** Readiness answers 503, responses close their connections and every subscription stream completes (SIGTERM). */
  beginShutdown(): void;
  /** Serves GraphQL over WebSocket (graphql-ws) on this server's GraphQL path. */
  serveWebSocket(server: Server): void;
  /** Open subscription streams and the polls feeding them. */
  subscriptionStats(): { streams: number; polls: number };
  /** Releases the upstream pool, then exports the spans still queued, for at most `flushWithinMs`. */
  close(flushWithinMs?: number): Promise<void>;
}

export function createGateway(given: GatewayOptions): Gateway {
  const options = { ...given, ...resolveConfig(given), upstreamUrl: given.upstreamUrl };
  const transport = withCircuitBreakers(
    options.transport ?? createUpstreamTransport({ baseUrl: options.upstreamUrl, ...transportSettings(options) }),
    { ...options.circuitBreaker, rollingWindowMs: given.circuitBreaker?.rollingWindowMs },
  );
  const arrivals = new WeakMap<object, Arrival>();
  const observability = createObservability({
    ...options,
    transport,
    requestIdOf: (request) => arrivals.get(request)?.requestId,
    onOperation: (summary, request) => arrivals.get(request)?.trace?.end(summary),
  });
  const tracing = createTracing({ settings: options.tracing, upstreamUrl: options.upstreamUrl, logger: observability.logger });
  /** Notes a request's arrival (an HTTP request, or one operation over WebSocket); returns its id. */
  const arrive = (request: Request) => {
    const receivedAt = performance.now();
    const requestId = requestIdOf(request.headers.get('x-request-id'));
    arrivals.set(request, { requestId, receivedAt, trace: tracing.startRequest(request, receivedAt) });
    return requestId;
  };
  const { idempotency } = options;
  // Each operation's fan-out estimate, noted once by the fan-out plugin: its upstream calls, read by
  // the upstream budget (which reserves them) and `x-cost`, and its weight, read by admission control
  // (which weighs the request by it: the calls, and the lookups answered without one).
  const estimates = new WeakMap<object, number>();
  const estimateOf = (context: object) => estimates.get(context);
  const weights = new WeakMap<object, number>();
  const weightOf = (context: object) => weights.get(context);
  const labelBounds = {
    maxLength: GATEWAY_LABEL_MAX_LENGTH,
    maxValues: options.metricsMaxLabelValues,
  };
  const economy = createUpstreamEconomy({
    ...options,
    estimateOf,
    idempotencyMaxEntries: idempotency.maxEntries,
    logger: observability.logger,
    registry: observability.metrics.registry,
    labelBounds,
  });
  let webSocket: WebSocketEndpoint | undefined;
  const http = createHttpSurface(
    { ...options, transport, cacheStore: economy?.storeReport, openWebSockets: () => webSocket?.open() },
    GRAPHQL_ENDPOINT,
  );
  const limits: RequestLimits = {
    maxCalls: options.maxUpstreamCalls,
    concurrency: options.upstreamConcurrencyPerRequest,
    deadlineMs: options.requestDeadlineMs,
    maxLookupScanPages: options.maxLookupScanPages,
    onCall: (call) => {
      observability.onUpstreamCall(call);
      options.onUpstreamCall?.(call);
    },
  };

  // Answers are compared with the schema below the cache, so a record is counted when the upstream sends it.
  const watchedTransport = watchingDrift(transport, createDriftWatch(schema, observability));
  const subscriptions = subscriptionHub(options, { transport: watchedTransport, economy, limits, observability, labelBounds });
  const admission = createAdmission({
    capacity: options.admissionCapacity,
    maxWaitMs: options.admissionMaxWaitMs,
    maxQueued: options.admissionMaxQueued,
    observer: observability.metrics.admission,
  });
  observability.metrics.trackAdmission(admission.state);
  const arrivedAt = (request: Request) => arrivals.get(request)?.receivedAt ?? performance.now();
  const admittedLatencyMs = Math.min(options.maxAdmittedLatencyMs, limits.deadlineMs);
  const admissionGate = admissionPlugin(admission, {
    weightOf,
    deadlineAt: (request) => arrivedAt(request) + limits.deadlineMs,
    endBy: (request) => arrivedAt(request) + admittedLatencyMs,
    stuckAfterMs: options.upstreamTimeoutMs + STUCK_MARGIN_MS,
    onStuck: (request) =>
      observability.logger.error(
        { requestId: arrivals.get(request)?.requestId },
        'an execution was still running long after its deadline: answered "Unexpected error.", its admission weight given back',
      ),
  });

  const maxJsonDepth = options.maxJsonDepth;
  // An upstream value a field cannot represent fails that field with UPSTREAM_ERROR (graphql-errors.ts).
  const { maxResponseBytes } = options;
  const operations = compiledOperations(
    { customSerializers: leafSerializers(schema, maxJsonDepth) },
    (result) => jitCompileFailure(observability.logger, result),
    maxResponseBytes,
  );
  const graphiql = createLocalGraphiQL({
    title: 'Organization GraphQL gateway',
    defaultQuery: EXAMPLE_QUERY,
    demoKey: options.demoKey,
    bootstrapScript: options.graphiqlBootstrapScript,
  });

  const persisted = persistedOperations(options.persistedOperations, economy?.persistedQueries);
  const batches = batching({
    maxBatchSize: options.maxBatchSize,
    maxUpstreamCalls: limits.maxCalls,
    estimate: (document, operationName, variables) =>
      estimateUpstreamCalls(schema, document, operationName, variables, { maxLookupScanPages: limits.maxLookupScanPages }),
    persistedText: persisted.textOf,
    idempotencyHeader: IDEMPOTENCY_KEY_HEADER,
    reserve: economy?.reserveBatch,
  });
  const yoga = createYoga<Record<string, never>, GatewayContext>({
    schema,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    // GET /health: Yoga's own check answers 200 while the process is up.
    healthCheckEndpoint: '/health',
    landingPage: false,
    logging: observability.yogaLogger,
    cors: http.cors,
    context: ({ request }) =>
      createContext(
        economy ? economy.transportFor(request, watchedTransport) : watchedTransport,
        request,
        limits,
        arrivals.get(request),
        subscriptions,
      ),
    maskedErrors: { maskError: callerFacingError },
    renderGraphiQL: graphiql.render,
    graphiql: graphiql.options,
    // A JSON array of operations (src/incremental/batching.ts enforces MAX_BATCH_SIZE).
    batching: YOGA_BATCHING,
    // bodyLimitPlugin enforces MAX_REQUEST_BYTES (by Content-Length, and by counting a chunked
    // body), and Node's parser holds a body to its Content-Length. Yoga's own 25 MB check would pipe
    // every request body through a TransformStream and build a second Request.
    maxRequestBodySize: false,
    plugins: [
      ...(options.plugins ?? []),
      // @defer/@stream run on Yoga's execution, except in a batch (compiled: the slot holds the whole result).
      compiledExecutionPlugin(
        operations,
        (args) => usesIncrementalDelivery(args.document) && !batches.inBatch((args.contextValue as YogaInitialContext).request),
      ),
      responseSizePlugin(maxResponseBytes),
      arrivalPlugin(arrivals, arrive),
      withoutOriginalErrors(),
      graphiql.plugin,
      ...observability.plugins,
      costExtensionPlugin({ max: limits.maxCalls, estimateOf }),
      ...http.plugins,
      bodyLimitPlugin(options.maxRequestBytes),
      // After every plugin that picks a request parser: it wraps the one picked.
      ...protocolErrorPlugins(),
      batches.plugin,
      ...deferStreamPlugins(batches.inBatch, callerFacingError),
      ...persisted.plugins,
      ...queryLimitPlugins(options.queryLimits),
      // Before the fan-out estimate: it reads the variables.
      jsonDepthPlugin(maxJsonDepth),
      // After the depth check (it reads the variables too), before the idempotency claim: a
      // malformed id in a mutation's input is refused before anything is remembered or spent.
      argumentChecksPlugin(),
      // Before the estimate and the budget: a replay or a refusal costs neither.
      idempotencyPlugin({
        ...idempotency,
        store: economy?.store,
        // A write sent just before the deadline is seen through for up to UPSTREAM_TIMEOUT_MS; a second for storing.
        maxRequestMs: limits.deadlineMs + options.upstreamTimeoutMs + 1000,
        events: createIdempotencyMetrics(observability.metrics.registry),
      }),
      fanOutBudgetPlugin({
        maxCalls: limits.maxCalls,
        maxLookupIds: options.maxLookupIds,
        maxLookupScanPages: limits.maxLookupScanPages,
        onEstimate: (context, calls, weight) => {
          estimates.set(context, calls);
          weights.set(context, weight);
        },
      }),
      // After the estimate: the upstream budget reserves it.
      ...(economy?.plugins ?? []),
      // Last before execution: a request weighs its estimated upstream calls. After the budget, whose
      // refusal would otherwise end execution before admission's wrapper could release the weight.
      admissionGate,
      // After every check that can refuse an operation: only one that runs shares its APQ text.
      ...persisted.afterChecks,
      ...subscriptionPlugins(operations),
    ],
  });

  const listener = errorBoundary(yoga, {
    logger: observability.logger,
    requestIdOf: (request) => arrivals.get(request)?.requestId ?? requestIdOf(request.headers.get('x-request-id')),
    corsHeaders: http.corsHeaders,
  });

  return {
    listener,
    refuseOverCapacity: overCapacityAnswer({
      corsHeaders: http.corsHeaders,
      onRefused: () => observability.metrics.admission.refused('connections'),
      requestIdOf,
    }),
    yoga,
    transport,
    logger: observability.logger,
    metrics: observability.metrics,
    metricsListener: observability.metricsListener,
    beginShutdown: () => {
      http.beginShutdown();
      subscriptions.close();
      webSocket?.beginShutdown();
    },
    serveWebSocket(server) {
      webSocket = serveWebSocket(server, {
        yoga,
        path: GRAPHQL_ENDPOINT,
        maxPayload: options.maxRequestBytes,
        arrive,
        requestLog: observability.requestLog,
        persisted,
        registry: observability.metrics.registry,
      });
    },
    subscriptionStats: subscriptions.stats,
    close: async (flushWithinMs = Number.POSITIVE_INFINITY) => {
      const flushBy = performance.now() + flushWithinMs;
      subscriptions.close();
      await transport.close();
      await http.close();
      await economy?.close();
      // What is left of it: closing the rest took some.
      await tracing.shutdown(Math.max(0, Math.round(flushBy - performance.now())));
    },
  };
}

/** Past a request's deadline and UPSTREAM_TIMEOUT_MS (the longest a write is seen through), how much longer before its execution counts as stuck. */
const STUCK_MARGIN_MS = 2000;

/** The URL of the Request a subscription poll is made as: it never leaves the process. */
const POLL_URL = 'http://subscription-poll.invalid/';

interface HubParts {
  transport: UpstreamTransport;
  economy: ReturnType<typeof createUpstreamEconomy>;
  limits: RequestLimits;
  observability: ReturnType<typeof createObservability>;
  labelBounds: LabelBounds;
}

/** This gateway's subscriptions, and their metrics. */
function subscriptionHub(
  options: Pick<GatewayConfig, 'subscriptions'>,
  { transport, economy, limits, observability, labelBounds }: HubParts,
) {
  // A poll is a request of its own: a fresh context (loaders, call records) through the same
  // transport path as a request's (the cache, the circuit breakers) and under the key's budget.
  const runPoll: PollRunner = (key, signal, fetch) => {
    const request = new Request(POLL_URL, { headers: { authorization: `Bearer ${key}` }, signal });
    const context = createContext(economy ? economy.transportFor(request, transport) : transport, request, limits);
    const poll = async () => {
      try {
        return await fetch(context.loaders);
      } finally {
        economy?.ended(request);
      }
    };
    return economy?.poll ? economy.poll(key, context, poll) : poll();
  };
  const metrics = createSubscriptionMetrics(observability.metrics.registry, labelBounds);
  const hub = createSubscriptionHub({
    ...options.subscriptions,
    run: runPoll,
    logger: observability.logger,
    feed: economy?.writeFeed,
    events: metrics,
  });
  metrics.track(hub.stats);
  return hub;
}

/** Every error leaves through here: upstream failures get contract codes, anything else is masked. */
function callerFacingError(error: unknown): Error {
  const located = error instanceof GraphQLError ? error : undefined;
  const cause = located?.originalError ?? error;
  const converted = toGraphQLError(cause);
  if (located && converted === cause) return located.originalError ? located : converted;
  return new GraphQLError(converted.message, { nodes: located?.nodes, path: located?.path, extensions: converted.extensions });
}

/**
 * graphql-jit could not compile a validated operation: a bug, logged (graphql-jit would
 * console.error it, past LOG_FILE) and answered as one. Its result is cached with the document, so it is rewritten once.
 */
function jitCompileFailure(logger: Logger, result: ExecutionResult): void {
  logger.error({ err: result.errors?.[0] }, 'graphql-jit could not compile an operation');
  result.errors = [unexpectedError()];
}

/**
 * Yoga attaches `extensions.originalError` (name and message) to the errors of a request it could
 * not parse, even in production: for a malformed JSON body the message quotes the body back. No
 * internal detail reaches the caller, so it is hidden from every response.
 */
function withoutOriginalErrors(): Plugin {
  return {
    onResultProcess({ result }) {
      if (Array.isArray(result) || !('errors' in result)) return;
      for (const error of result.errors ?? []) {
        const extensions = error.extensions as Record<string, unknown> | undefined;
        if (!extensions?.originalError) continue;
        // Hidden, not deleted: Yoga still reads it to choose 400 over 200 for a request it could not
        // parse. These errors are made per request while parsing it, never cached.
        Object.defineProperty(extensions, 'originalError', { value: extensions.originalError, enumerable: false });
      }
    },
  };
}

/**
 * Notes each request's arrival, the first thing Yoga does with it: the time its deadline counts from,
 * its id and its trace. An incoming `x-request-id` (or a new one) goes upstream with every call and
 * back in the response; an incoming `traceparent` is continued (src/tracing).
 */
function arrivalPlugin(arrivals: WeakMap<object, Arrival>, arrive: (request: Request) => string): Plugin {
  return {
    onRequest({ request }) {
      arrive(request);
    },
    onResponse({ request, response }) {
      const id = arrivals.get(request)?.requestId;
      if (id) response.headers.set('x-request-id', id);
    },
  };
}
