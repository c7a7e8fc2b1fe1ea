// createGateway(options): the Yoga instance (schema, per-request context, error masking, request
// ids, health) over one shared upstream transport, and the Node listener that serves it behind the
// fast path for known queries (src/known-queries).

import type { RequestListener } from 'node:http';
import { type ExecutionResult, GraphQLError } from 'graphql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { BudgetWindow } from './budget-setting.ts';
import { compiledExecutionPlugin, compiledOperations } from './compiled-operations.ts';
import { type CacheSettings, DEFAULTS, type IdempotencySettings, type SubscriptionSettings, type TracingSettings } from './config.ts';
import { type Arrival, createContext, type GatewayContext, type RequestLimits, requestIdOf } from './context.ts';
import { createDriftWatch, watchingDrift } from './drift-watch.ts';
import { EXAMPLE_QUERY } from './example-query.ts';
import { createLocalGraphiQL } from './graphiql/index.ts';
import { GRAPHQL_ENDPOINT } from './graphql-endpoint.ts';
import { toGraphQLError, unexpectedError } from './graphql-errors.ts';
import { createHttpSurface, type HttpOptions } from './http/index.ts';
import { createIdempotencyMetrics, IDEMPOTENCY_KEY_HEADER, idempotencyPlugin } from './idempotency/index.ts';
import { fastPathListener } from './known-queries/fast-path.ts';
import { createKnownQueries } from './known-queries/known-queries.ts';
import { createAdmission } from './limits/admission.ts';
import { admissionGate } from './limits/admission-plugin.ts';
import { bodyLimitPlugin } from './limits/body-limit.ts';
import { fanOutBudgetPlugin } from './limits/fan-out-plugin.ts';
import { jsonDepthPlugin } from './limits/json-depth.ts';
import { DEFAULT_QUERY_LIMITS, type QueryLimits, queryLimitPlugins } from './limits/query-limits.ts';
import type { LabelBounds } from './observability/bounded-label.ts';
import { DEBUG_HEADER } from './observability/debug-extension.ts';
import { createObservability, type ObservabilityOptions } from './observability/index.ts';
import type { Logger } from './observability/logger.ts';
import { GATEWAY_LABEL_MAX_LENGTH, type GatewayMetrics } from './observability/metrics.ts';
import { type OperationManifest, persistedOperations } from './persisted/index.ts';
import { protocolErrorPlugins } from './protocol-errors.ts';
import { type CircuitBreakerOptions, type GuardedTransport, withCircuitBreakers } from './rest/circuit-breaker.ts';
import type { UpstreamCall } from './rest/request-transport.ts';
import { createUpstreamTransport, type UpstreamTransport } from './rest/transport.ts';
import { argumentChecksPlugin } from './schema/argument-checks.ts';
import { leafSerializers } from './schema/leaf-serializers.ts';
import { subgraphSchema as schema } from './schema/subgraph.ts'; // the public schema plus _service and _entities
import { createSubscriptionHub } from './subscriptions/hub.ts';
import { createSubscriptionMetrics } from './subscriptions/metrics.ts';
import { subscriptionPlugins } from './subscriptions/plugins.ts';
import type { PollRunner } from './subscriptions/watched.ts';
import { createTracing } from './tracing/index.ts';
import { createUpstreamEconomy } from './upstream-economy/index.ts';

/** Logging, metrics, readiness, CORS and CSRF settings: see src/observability and src/http. */
type OperationsOptions = Omit<ObservabilityOptions, 'transport' | 'requestIdOf' | 'onOperation'> &
  Omit<HttpOptions, 'transport' | 'upstreamUrl' | 'cacheStore'>;

export interface GatewayOptions extends OperationsOptions {
  upstreamUrl: string;
  /** @default DEFAULTS.UPSTREAM_TIMEOUT_MS */
  upstreamTimeoutMs?: number;
  /** @default DEFAULTS.UPSTREAM_CONNECTIONS */
  upstreamConnections?: number;
  /** @default DEFAULTS.UPSTREAM_GET_RETRIES */
  upstreamGetRetries?: number;
  /** Upstream calls one request may make; the fan-out estimate refuses operations above it. @default DEFAULTS.MAX_UPSTREAM_CALLS */
  maxUpstreamCalls?: number;
  /** Upstream calls of one request in flight at once. @default DEFAULTS.UPSTREAM_CONCURRENCY_PER_REQUEST */
  upstreamConcurrencyPerRequest?: number;
  /** From a request's arrival, time until its last upstream call must have ended. @default DEFAULTS.REQUEST_DEADLINE_MS */
  requestDeadlineMs?: number;
  /** Estimated upstream calls of admitted requests at once. @default ADMITTED_CALLS_PER_CONNECTION × upstreamConnections (DEFAULTS.ADMISSION_CAPACITY is unset) */
  admissionCapacity?: number;
  /** Longest predicted wait for admission; longer is refused at once. @default DEFAULTS.ADMISSION_MAX_WAIT_MS */
  admissionMaxWaitMs?: number;
  /** Requests waiting for admission at once. @default DEFAULTS.ADMISSION_MAX_QUEUED */
  admissionMaxQueued?: number;
  /** List pages (of 100) a lookup of an invite or member may scan; they have no REST retrieve. @default DEFAULTS.MAX_LOOKUP_SCAN_PAGES */
  maxLookupScanPages?: number;
  /** Largest upstream answer body, in bytes. @default DEFAULTS.MAX_UPSTREAM_RESPONSE_BYTES */
  maxUpstreamResponseBytes?: number;
  /** Upstream answer bytes all calls in flight may buffer at once. @default DEFAULTS.MAX_UPSTREAM_BUFFERED_BYTES */
  maxUpstreamBufferedBytes?: number;
  /** Most values an upstream answer over 64 KiB may hold. @default DEFAULTS.MAX_UPSTREAM_JSON_VALUES */
  maxUpstreamJsonValues?: number;
  /** The upstream circuit breakers (whole upstream, and per route for reads). @default DEFAULTS.CIRCUIT_BREAKER_* */
  circuitBreaker?: CircuitBreakerOptions;
  /** Depth, aliases, tokens and directives per operation. @default DEFAULT_QUERY_LIMITS */
  queryLimits?: Partial<QueryLimits>;
  /** Largest request body accepted. @default DEFAULTS.MAX_REQUEST_BYTES */
  maxRequestBytes?: number;
  /** How deeply a `JSON` value may nest, in a caller's input and in an upstream answer. @default DEFAULTS.MAX_JSON_DEPTH */
  maxJsonDepth?: number;
  /** Filled into GraphiQL's headers: only for the embedded demo API, never for a real upstream. */
  demoKey?: string;
  /** Run only these operations, by id (PERSISTED_OPERATIONS). @default undefined: any operation, and APQ */
  persistedOperations?: OperationManifest;
  /** Caches upstream GET answers across requests (CACHE and its settings). @default undefined: nothing is cached */
  cache?: CacheSettings;
  /** Known queries the fast path keeps (FAST_PATH_MAX_QUERIES); 0 turns it off. @default DEFAULTS.FAST_PATH_MAX_QUERIES */
  fastPathMaxQueries?: number;
  /** Upstream calls each key may make per window (UPSTREAM_BUDGET). @default undefined: no budget */
  upstreamBudget?: readonly BudgetWindow[];
  /** What idempotent mutations remember, and how long. @default DEFAULTS.IDEMPOTENCY_* */
  idempotency?: Partial<IdempotencySettings>;
  /** Poll interval and stream limits of subscriptions. @default DEFAULTS.SUBSCRIPTION_POLL_MS, DEFAULTS.MAX_SUBSCRIPTIONS_PER_KEY, DEFAULTS.MAX_SUBSCRIPTIONS */
  subscriptions?: Partial<SubscriptionSettings>;
  /** Export spans over OTLP/HTTP (the OTEL_* settings). @default undefined: nothing exported; an incoming `traceparent` is still passed on */
  tracing?: TracingSettings;
  /** A transport to use instead of building one (tests). */
  transport?: UpstreamTransport;
  /** Told of every finished upstream call, after the metrics. */
  onUpstreamCall?: (call: UpstreamCall) => void;
}

/** ADMISSION_CAPACITY when unset: estimated calls admitted per upstream connection (docs/overload.md). */
const ADMITTED_CALLS_PER_CONNECTION = 2;

export interface Gateway {
  /** The Node request listener to serve: the fast path for known queries, then Yoga for every other request. */
  listener: RequestListener;
  yoga: YogaServerInstance<Record<string, never>, GatewayContext>;
  /** The upstream transport behind its circuit breakers (their states feed readiness, metrics and logs). */
  transport: GuardedTransport;
  logger: Logger;
  metrics: GatewayMetrics;
  /** Readiness answers 503, responses close their connections and every subscription stream completes (SIGTERM). */
  beginShutdown(): void;
  /** Open subscription streams and the polls feeding them. */
  subscriptionStats(): { streams: number; polls: number };
  /** Releases the upstream pool, then exports the spans still queued, for at most `flushWithinMs`. */
  close(flushWithinMs?: number): Promise<void>;
}

export function createGateway(options: GatewayOptions): Gateway {
  const transport = withCircuitBreakers(
    options.transport ??
      createUpstreamTransport({
        baseUrl: options.upstreamUrl,
        timeoutMs: options.upstreamTimeoutMs,
        connections: options.upstreamConnections,
        getRetries: options.upstreamGetRetries,
        maxResponseBytes: options.maxUpstreamResponseBytes,
        maxBufferedBytes: options.maxUpstreamBufferedBytes,
        maxJsonValues: options.maxUpstreamJsonValues,
      }),
    options.circuitBreaker,
  );
  const arrivals = new WeakMap<object, Arrival>();
  const observability = createObservability({
    ...options,
    transport,
    requestIdOf: (request) => arrivals.get(request)?.requestId,
    onOperation: (summary, request) => arrivals.get(request)?.trace?.end(summary),
  });
  const tracing = createTracing({ settings: options.tracing, upstreamUrl: options.upstreamUrl, logger: observability.logger });
  /** Notes a request's arrival (see arrivalPlugin); returns its id. */
  const arrive = (request: Request) => {
    const receivedAt = performance.now();
    const requestId = requestIdOf(request.headers.get('x-request-id'));
    arrivals.set(request, { requestId, receivedAt, trace: tracing.startRequest(request, receivedAt) });
    return requestId;
  };
  const idempotency: IdempotencySettings = {
    ttlMs: DEFAULTS.IDEMPOTENCY_TTL_MS,
    maxResponseBytes: DEFAULTS.IDEMPOTENCY_MAX_RESPONSE_BYTES,
    maxEntries: DEFAULTS.IDEMPOTENCY_MAX_ENTRIES,
    maxEntriesPerCaller: DEFAULTS.IDEMPOTENCY_MAX_ENTRIES_PER_CALLER,
    ...options.idempotency,
  };
  // Each operation's fan-out estimate, noted once by the fan-out plugin and read by the upstream
  // budget (which reserves it) and admission control (which weighs the request by it).
  const estimates = new WeakMap<object, number>();
  const estimateOf = (context: object) => estimates.get(context);
  const labelBounds = {
    maxLength: GATEWAY_LABEL_MAX_LENGTH,
    maxValues: options.metricsMaxLabelValues ?? DEFAULTS.METRICS_MAX_LABEL_VALUES,
  };
  const economy = createUpstreamEconomy({
    ...options,
    estimateOf,
    idempotencyMaxEntries: idempotency.maxEntries,
    logger: observability.logger,
    registry: observability.metrics.registry,
    labelBounds,
  });
  const http = createHttpSurface({ ...options, transport, cacheStore: economy?.storeReport }, GRAPHQL_ENDPOINT);
  const limits: RequestLimits = {
    maxCalls: options.maxUpstreamCalls ?? DEFAULTS.MAX_UPSTREAM_CALLS,
    concurrency: options.upstreamConcurrencyPerRequest ?? DEFAULTS.UPSTREAM_CONCURRENCY_PER_REQUEST,
    deadlineMs: options.requestDeadlineMs ?? DEFAULTS.REQUEST_DEADLINE_MS,
    maxLookupScanPages: options.maxLookupScanPages ?? DEFAULTS.MAX_LOOKUP_SCAN_PAGES,
    onCall: (call) => {
      observability.onUpstreamCall(call);
      options.onUpstreamCall?.(call);
    },
  };

  // Answers are compared with the schema below the cache, so a record is counted when the upstream sends it.
  const watchedTransport = watchingDrift(transport, createDriftWatch(schema, observability));
  const subscriptions = subscriptionHub(options, { transport: watchedTransport, economy, limits, observability, labelBounds });
  const admission = createAdmission({
    // Twice the pool (measured: docs/overload.md): a request's estimate is its most calls at once,
    // and it holds about half that on average (a dashboard's first call runs alone, then its 20).
    capacity: options.admissionCapacity ?? ADMITTED_CALLS_PER_CONNECTION * (options.upstreamConnections ?? DEFAULTS.UPSTREAM_CONNECTIONS),
    maxWaitMs: options.admissionMaxWaitMs ?? DEFAULTS.ADMISSION_MAX_WAIT_MS,
    maxQueued: options.admissionMaxQueued ?? DEFAULTS.ADMISSION_MAX_QUEUED,
    observer: observability.metrics.admission,
  });
  observability.metrics.trackAdmission(admission.state);
  const gate = admissionGate(admission, {
    estimateOf,
    deadlineAt: (request) => (arrivals.get(request)?.receivedAt ?? performance.now()) + limits.deadlineMs,
    stuckAfterMs: (options.upstreamTimeoutMs ?? DEFAULTS.UPSTREAM_TIMEOUT_MS) + STUCK_MARGIN_MS,
    onStuck: (request) =>
      observability.logger.error(
        { requestId: arrivals.get(request)?.requestId },
        'an execution was still running long after its deadline: answered "Unexpected error.", its admission weight given back',
      ),
  });

  const maxJsonDepth = options.maxJsonDepth ?? DEFAULTS.MAX_JSON_DEPTH;
  // An upstream value a field cannot represent fails that field with UPSTREAM_ERROR (graphql-errors.ts).
  const operations = compiledOperations({ customSerializers: leafSerializers(schema, maxJsonDepth) }, (result) =>
    jitCompileFailure(observability.logger, result),
  );
  const graphiql = createLocalGraphiQL({ title: 'Organization GraphQL gateway', defaultQuery: EXAMPLE_QUERY, demoKey: options.demoKey });

  const persisted = persistedOperations(options.persistedOperations, economy?.persistedQueries);
  const contextOf = ({ request }: { request: Request }) =>
    createContext(
      economy ? economy.transportFor(request, watchedTransport) : watchedTransport,
      request,
      limits,
      arrivals.get(request),
      subscriptions,
    );
  const fastPathMaxQueries = options.fastPathMaxQueries ?? DEFAULTS.FAST_PATH_MAX_QUERIES;
  const fastPath = fastPathMaxQueries > 0 ? { known: createKnownQueries({ max: fastPathMaxQueries, operations, estimateOf }) } : undefined;
  const yoga = createYoga<Record<string, never>, GatewayContext>({
    schema,
    graphqlEndpoint: GRAPHQL_ENDPOINT,
    // GET /health: Yoga's own check answers 200 while the process is up.
    healthCheckEndpoint: '/health',
    landingPage: false,
    logging: observability.yogaLogger,
    cors: http.cors,
    context: contextOf,
    maskedErrors: { maskError: callerFacingError },
    renderGraphiQL: graphiql.render,
    graphiql: graphiql.options,
    // Batched operations (a JSON array of operations) stay off: Yoga's default.
    batching: false,
    // bodyLimitPlugin enforces MAX_REQUEST_BYTES (by Content-Length, and by counting a chunked
    // body), and Node's parser holds a body to its Content-Length. Yoga's own 25 MB check would pipe
    // every request body through a TransformStream and build a second Request.
    maxRequestBodySize: false,
    plugins: [
      compiledExecutionPlugin(operations),
      arrivalPlugin(arrivals, arrive),
      withoutOriginalErrors(),
      graphiql.plugin,
      ...observability.plugins,
      ...http.plugins,
      bodyLimitPlugin(options.maxRequestBytes ?? DEFAULTS.MAX_REQUEST_BYTES),
      // After every plugin that picks a request parser: it wraps the one picked.
      ...protocolErrorPlugins(),
      ...persisted.plugins,
      ...queryLimitPlugins({ ...DEFAULT_QUERY_LIMITS, ...options.queryLimits }),
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
        maxRequestMs: limits.deadlineMs + (options.upstreamTimeoutMs ?? DEFAULTS.UPSTREAM_TIMEOUT_MS) + 1000,
        events: createIdempotencyMetrics(observability.metrics.registry),
      }),
      fanOutBudgetPlugin(limits.maxCalls, limits.maxLookupScanPages, (context, estimate) => estimates.set(context, estimate)),
      // After the estimate: the upstream budget reserves it.
      ...(economy?.plugins ?? []),
      // Last before execution: a request weighs its estimated upstream calls. After the budget, whose
      // refusal would otherwise end execution before admission's wrapper could release the weight.
      gate.plugin,
      // After every check that can refuse an execution: only a query that passed them all is known.
      ...(fastPath ? [fastPath.known.recorder] : []),
      // After every check that can refuse an operation: only one that runs shares its APQ text.
      ...persisted.afterChecks,
      ...subscriptionPlugins(operations),
    ],
  });

  const listener = fastPath
    ? fastPathListener(
        {
          known: fastPath.known,
          endpoint: GRAPHQL_ENDPOINT,
          maxRequestBytes: options.maxRequestBytes ?? DEFAULTS.MAX_REQUEST_BYTES,
          pipelineHeaders: [DEBUG_HEADER, IDEMPOTENCY_KEY_HEADER, ...(economy?.pipelineHeaders ?? [])],
          corsHeaders: http.corsHeaders,
          persistedText: persisted.textOf,
          acceptsQueryText: persisted.acceptsQueryText,
          takesGet: !http.csrfPrevention,
          open: () => !admission.queueing(),
          shuttingDown: http.shuttingDown,
          arrive,
          // Merged as envelop merges a context: `{ ...initial, ...context }` would give every request's
          // context a hidden class of its own (V8), and every resolver's read of it a miss.
          contextFor: (initial) => Object.assign(initial, contextOf(initial)),
          requestLog: observability.requestLog,
          economy: economy && {
            execute: (request, context, estimate, run) => economy.execute(request, context as GatewayContext, estimate, run),
          },
          admission: gate,
          maskError: callerFacingError,
          registry: observability.metrics.registry,
          onBug: (error) => observability.logger.error({ err: error }, 'the fast path failed a request: answered "Unexpected error."'),
        },
        yoga,
      )
    : yoga;

  return {
    listener,
    yoga,
    transport,
    logger: observability.logger,
    metrics: observability.metrics,
    beginShutdown: () => {
      http.beginShutdown();
      subscriptions.close();
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
function subscriptionHub(options: GatewayOptions, { transport, economy, limits, observability, labelBounds }: HubParts) {
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
    pollMs: options.subscriptions?.pollMs ?? DEFAULTS.SUBSCRIPTION_POLL_MS,
    maxPerKey: options.subscriptions?.maxPerKey ?? DEFAULTS.MAX_SUBSCRIPTIONS_PER_KEY,
    max: options.subscriptions?.max ?? DEFAULTS.MAX_SUBSCRIPTIONS,
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
