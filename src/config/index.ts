// The only reader of process.env. loadConfig reads each setting through its declaration
// (./settings.ts): its kind checks the value, its default fills it when unset. The shape below is
// what createGateway and main take; every default comes from the declaration, none from a module.
import { misspelledSettings } from './misspelled.ts';
import { SETTINGS, type Setting } from './settings.ts';

export { redisClusterTarget } from './redis-target.ts';

/** Where GraphQL is served (the contract's `/graphql`): Yoga's endpoint, and the only path the request log summarises and the tracing gives a request span. */
export const GRAPHQL_ENDPOINT = '/graphql';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;
type SettingName = keyof typeof SETTINGS;
type ValueOf<N extends SettingName> = (typeof SETTINGS)[N] extends Setting<infer T> ? T : never;

/** A reader of one setting at a time: a setting is checked only when what it configures is on. */
function settingsOf(env: Env) {
  return <N extends SettingName>(name: N): ValueOf<N> => {
    const declared: Setting<unknown> = SETTINGS[name];
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return declared.default as ValueOf<N>;
    const result = declared.kind.schema.safeParse(raw);
    if (result.success) return result.data as ValueOf<N>;
    const issue = result.error.issues[0];
    if (issue?.code === 'custom' || declared.kind.secret) throw new ConfigError(`${name}${issue?.message}`);
    throw new ConfigError(`${name} must be ${declared.kind.accepts} (got "${raw.trim()}").`);
  };
}

/** The variables set that are probably misspelled settings, each with the setting it probably means (main warns). */
export function likelyMisspellings(env: Env = process.env) {
  return misspelledSettings(env);
}

/**
 * ADMISSION_CAPACITY when unset: estimated calls admitted per upstream connection (docs/overload.md).
 * A request's estimate is its most calls at once, and it holds about half that on average.
 */
const ADMITTED_CALLS_PER_CONNECTION = 2;

function admissionCapacity(capacity: number | undefined, upstreamConnections: number): number {
  return capacity ?? ADMITTED_CALLS_PER_CONNECTION * upstreamConnections;
}

/** MAX_ADMITTED_LATENCY_MS when unset: the longest wait for admission and a tenth of the deadline to run in (docs/overload.md). */
function maxAdmittedLatency(latencyMs: number | undefined, admissionMaxWaitMs: number, requestDeadlineMs: number): number {
  return latencyMs ?? Math.min(requestDeadlineMs, admissionMaxWaitMs + Math.round(requestDeadlineMs / 10));
}

export function loadConfig(env: Env = process.env) {
  const read = settingsOf(env);
  return {
    port: read('PORT'),
    host: read('HOST'),
    /** Unset: main starts the bundled reference API. */
    upstreamUrl: read('UPSTREAM_URL'),
    referenceApiPort: read('REFERENCE_API_PORT'),
    upstreamTimeoutMs: read('UPSTREAM_TIMEOUT_MS'),
    upstreamConnections: read('UPSTREAM_CONNECTIONS'),
    upstreamGetRetries: read('UPSTREAM_GET_RETRIES'),
    maxUpstreamCalls: read('MAX_UPSTREAM_CALLS'),
    maxBatchSize: read('MAX_BATCH_SIZE'),
    upstreamConcurrencyPerRequest: read('UPSTREAM_CONCURRENCY_PER_REQUEST'),
    requestDeadlineMs: read('REQUEST_DEADLINE_MS'),
    admissionCapacity: admissionCapacity(read('ADMISSION_CAPACITY'), read('UPSTREAM_CONNECTIONS')),
    admissionMaxWaitMs: read('ADMISSION_MAX_WAIT_MS'),
    maxAdmittedLatencyMs: maxAdmittedLatency(read('MAX_ADMITTED_LATENCY_MS'), read('ADMISSION_MAX_WAIT_MS'), read('REQUEST_DEADLINE_MS')),
    admissionMaxQueued: read('ADMISSION_MAX_QUEUED'),
    maxLookupScanPages: read('MAX_LOOKUP_SCAN_PAGES'),
    maxLookupIds: read('MAX_LOOKUP_IDS'),
    maxResponseBytes: read('MAX_RESPONSE_BYTES'),
    maxUpstreamResponseBytes: read('MAX_UPSTREAM_RESPONSE_BYTES'),
    maxUpstreamBufferedBytes: read('MAX_UPSTREAM_BUFFERED_BYTES'),
    maxUpstreamJsonValues: read('MAX_UPSTREAM_JSON_VALUES'),
    maxRequestBytes: read('MAX_REQUEST_BYTES'),
    maxJsonDepth: read('MAX_JSON_DEPTH'),
    queryLimits: {
      maxDepth: read('MAX_DEPTH'),
      maxAliases: read('MAX_ALIASES'),
      maxTokens: read('MAX_TOKENS'),
      maxDirectives: read('MAX_DIRECTIVES'),
      maxIntrospectionDepth: read('MAX_INTROSPECTION_DEPTH'),
      maxIntrospectionTypes: read('MAX_INTROSPECTION_TYPES'),
    },
    maxOperationNameLength: read('MAX_OPERATION_NAME_LENGTH'),
    metricsMaxLabelValues: read('METRICS_MAX_LABEL_VALUES'),
    ...loadLoggingConfig(env),
    shutdownGraceMs: read('SHUTDOWN_GRACE_MS'),
    readinessTimeoutMs: read('READINESS_TIMEOUT_MS'),
    corsOrigins: read('CORS_ORIGINS'),
    csrfPrevention: read('CSRF_PREVENTION'),
    metricsEnabled: read('METRICS_ENABLED'),
    metricsListen: metricsListen(read),
    metricsCacheMs: read('METRICS_CACHE_MS'),
    debugUpstreamCalls: read('DEBUG_UPSTREAM_CALLS'),
    persistedOperations: read('PERSISTED_OPERATIONS'),
    /** Unset (no CACHE): nothing is cached across requests. */
    cache: read('CACHE') === undefined ? undefined : cacheSettings(read),
    upstreamBudget: read('UPSTREAM_BUDGET'),
    idempotency: {
      ttlMs: read('IDEMPOTENCY_TTL_MS'),
      maxResponseBytes: read('IDEMPOTENCY_MAX_RESPONSE_BYTES'),
      maxEntries: read('IDEMPOTENCY_MAX_ENTRIES'),
      maxEntriesPerCaller: read('IDEMPOTENCY_MAX_ENTRIES_PER_CALLER'),
    },
    subscriptions: {
      pollMs: read('SUBSCRIPTION_POLL_MS'),
      maxPerKey: read('MAX_SUBSCRIPTIONS_PER_KEY'),
      max: read('MAX_SUBSCRIPTIONS'),
    },
    server: serverSettings(read),
    /** Unset (no OTLP endpoint nor OTEL_TRACES_EXPORTER=otlp, or OTEL_SDK_DISABLED): nothing is exported. */
    tracing: tracingSettings(read),
    circuitBreaker: {
      errorThresholdPercentage: read('CIRCUIT_BREAKER_ERROR_PERCENT'),
      volumeThreshold: read('CIRCUIT_BREAKER_MIN_CALLS'),
      resetTimeoutMs: read('CIRCUIT_BREAKER_RESET_MS'),
    },
  };
}

type Read = ReturnType<typeof settingsOf>;

/** METRICS_PORT, with METRICS_HOST (default HOST): where `/metrics` is served on its own; unset: on the gateway's port. */
function metricsListen(read: Read): { port: number; host: string } | undefined {
  const port = read('METRICS_PORT');
  const host = read('METRICS_HOST');
  if (port === undefined) {
    if (host) throw new ConfigError("METRICS_HOST needs METRICS_PORT: /metrics is served on the gateway's own port otherwise.");
    return undefined;
  }
  return { port, host: host ?? read('HOST') };
}

/** The settings grouped in objects whose members may be given one by one. */
type Grouped = 'queryLimits' | 'idempotency' | 'subscriptions' | 'server' | 'circuitBreaker';

/** Some settings, for a gateway built in code (tests, scripts): the others keep their declared defaults. */
export type ConfigOverrides = Partial<Omit<GatewayConfig, Grouped | 'cache'>> & { [K in Grouped]?: Partial<GatewayConfig[K]> } & {
  cache?: Partial<CacheSettings> & Pick<CacheSettings, 'store'>;
};

/** `overrides` over the declared defaults (those of loadConfig with no variable set). */
export function resolveConfig(overrides: ConfigOverrides = {}): GatewayConfig {
  const defaults: Record<string, unknown> = { ...loadConfig({}), cache: loadConfig({ CACHE: 'memory' }).cache };
  const resolved = { ...loadConfig({}) } as Record<string, unknown>;
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const base = defaults[name];
    resolved[name] = isGroup(base) && isGroup(value) ? { ...base, ...value } : value;
  }
  resolved.admissionCapacity = admissionCapacity(overrides.admissionCapacity, resolved.upstreamConnections as number);
  resolved.maxAdmittedLatencyMs = maxAdmittedLatency(
    overrides.maxAdmittedLatencyMs,
    resolved.admissionMaxWaitMs as number,
    resolved.requestDeadlineMs as number,
  );
  return resolved as GatewayConfig;
}

function isGroup(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type GatewayConfig = ReturnType<typeof loadConfig>;
export type CacheSettings = ReturnType<typeof cacheSettings>;
export type ServerSettings = ReturnType<typeof serverSettings>;
export type TracingSettings = NonNullable<ReturnType<typeof tracingSettings>>;
export type IdempotencySettings = GatewayConfig['idempotency'];
export type QueryLimits = GatewayConfig['queryLimits'];
export type LogLevel = ValueOf<'LOG_LEVEL'>;
export type SamplerName = ValueOf<'OTEL_TRACES_SAMPLER'>;

/** The logging part alone: also what a gateway built without a logger (tests) logs with. */
export function loadLoggingConfig(env: Env = process.env) {
  const read = settingsOf(env);
  return { logLevel: read('LOG_LEVEL'), logFile: read('LOG_FILE'), logMaxLineLength: read('LOG_MAX_LINE_LENGTH') };
}

function cacheSettings(read: Read) {
  return {
    /** `memory` (this instance), or a Redis URL shared by every instance on it. */
    store: read('CACHE') as string,
    ttlMs: read('CACHE_TTL_MS'),
    /** Unset: generated once and kept in the store (memory: per process). */
    secret: read('CACHE_SECRET'),
    timeoutMs: read('CACHE_TIMEOUT_MS'),
    maxEntries: read('CACHE_MAX_ENTRIES'),
    maxBytes: read('CACHE_MAX_BYTES'),
  };
}

function serverSettings(read: Read) {
  const settings = {
    headersTimeoutMs: read('SERVER_HEADERS_TIMEOUT_MS'),
    requestTimeoutMs: read('SERVER_REQUEST_TIMEOUT_MS'),
    keepAliveTimeoutMs: read('SERVER_KEEP_ALIVE_TIMEOUT_MS'),
    maxConnections: read('MAX_CONNECTIONS'),
    maxOverflowConnections: read('MAX_OVERFLOW_CONNECTIONS'),
  };
  // Node refuses a headers timeout longer than the request timeout (the headers are part of the request).
  if (settings.headersTimeoutMs > settings.requestTimeoutMs) {
    throw new ConfigError(
      `SERVER_HEADERS_TIMEOUT_MS (${settings.headersTimeoutMs}) must not be longer than SERVER_REQUEST_TIMEOUT_MS (${settings.requestTimeoutMs}).`,
    );
  }
  return settings;
}

/** Where OTEL_TRACES_EXPORTER=otlp sends spans when no endpoint is set (OpenTelemetry's default for OTLP/HTTP). */
const OTLP_DEFAULT_ENDPOINT = 'http://localhost:4318/';

/**
 * Where spans are exported, and how (src/tracing). The OpenTelemetry SDK reads the variables this
 * gateway does not name itself (docs/tracing.md).
 */
function tracingSettings(read: Read) {
  if (read('OTEL_SDK_DISABLED')) return undefined;
  const exporter = read('OTEL_TRACES_EXPORTER');
  if (exporter === 'none') return undefined;
  const endpoint = otlpTracesUrl(read) ?? (exporter === 'otlp' ? new URL('v1/traces', OTLP_DEFAULT_ENDPOINT).href : undefined);
  if (!endpoint) return undefined;
  return {
    endpoint,
    protocol: read('OTEL_EXPORTER_OTLP_TRACES_PROTOCOL') ?? read('OTEL_EXPORTER_OTLP_PROTOCOL'),
    /** Sent with every export: often a credential, never logged. */
    headers: { ...read('OTEL_EXPORTER_OTLP_HEADERS'), ...read('OTEL_EXPORTER_OTLP_TRACES_HEADERS') },
    serviceName: read('OTEL_SERVICE_NAME'),
    sampler: read('OTEL_TRACES_SAMPLER'),
    samplerRatio: read('OTEL_TRACES_SAMPLER_ARG'),
  };
}

/** The OpenTelemetry rule: the traces endpoint is used as given, the general one gets the signal's path. */
function otlpTracesUrl(read: Read): string | undefined {
  const traces = read('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (traces) return new URL(traces).href;
  const base = read('OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!base) return undefined;
  return new URL('v1/traces', base.endsWith('/') ? base : `${base}/`).href;
}
