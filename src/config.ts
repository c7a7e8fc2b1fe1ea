// The only reader of process.env: every setting typed, defaulted and checked at start. Each default
// is written once, in DEFAULTS; createGateway, the transport, the limits and the HTTP and logging
// modules fall back on the same values, and docs/configuration.md is checked against them
// (test/ops/configuration-docs.spec.ts).
import { type BudgetWindow, parseUpstreamBudget } from './budget-setting.ts';
import { type OperationManifest, readOperationManifest } from './persisted/manifest.ts';

/** Every setting's default, by its environment variable (unset ones are `undefined`). */
export const DEFAULTS = {
  PORT: 4000,
  HOST: '0.0.0.0',
  UPSTREAM_URL: undefined,
  UPSTREAM_TIMEOUT_MS: 10_000,
  UPSTREAM_CONNECTIONS: 1024,
  UPSTREAM_GET_RETRIES: 2,
  MAX_UPSTREAM_CALLS: 250,
  MAX_BATCH_SIZE: 10,
  MAX_LOOKUP_SCAN_PAGES: 10,
  UPSTREAM_CONCURRENCY_PER_REQUEST: 32,
  REQUEST_DEADLINE_MS: 30_000,
  ADMISSION_CAPACITY: undefined,
  ADMISSION_MAX_WAIT_MS: 2000,
  ADMISSION_MAX_QUEUED: 500,
  MAX_UPSTREAM_RESPONSE_BYTES: 8 * 1024 * 1024,
  MAX_UPSTREAM_BUFFERED_BYTES: 256 * 1024 * 1024,
  MAX_UPSTREAM_JSON_VALUES: 100_000,
  CIRCUIT_BREAKER_ERROR_PERCENT: 50,
  CIRCUIT_BREAKER_MIN_CALLS: 10,
  CIRCUIT_BREAKER_RESET_MS: 5000,
  MAX_DEPTH: 12,
  MAX_ALIASES: 15,
  MAX_TOKENS: 2000,
  MAX_DIRECTIVES: 20,
  MAX_INTROSPECTION_DEPTH: 20,
  MAX_INTROSPECTION_TYPES: 10,
  MAX_REQUEST_BYTES: 102_400,
  SERVER_HEADERS_TIMEOUT_MS: 10_000,
  SERVER_REQUEST_TIMEOUT_MS: 30_000,
  SERVER_KEEP_ALIVE_TIMEOUT_MS: 5000,
  MAX_CONNECTIONS: 800,
  MAX_JSON_DEPTH: 32,
  LOG_LEVEL: 'info',
  LOG_FILE: undefined,
  LOG_MAX_LINE_LENGTH: 16_384,
  MAX_OPERATION_NAME_LENGTH: 100,
  SHUTDOWN_GRACE_MS: 10_000,
  READINESS_TIMEOUT_MS: 2000,
  CORS_ORIGINS: '*',
  CSRF_PREVENTION: false,
  METRICS_ENABLED: true,
  METRICS_MAX_LABEL_VALUES: 200,
  DEBUG_UPSTREAM_CALLS: true,
  FAST_PATH_MAX_QUERIES: 100,
  PERSISTED_OPERATIONS: undefined,
  CACHE: undefined,
  CACHE_TTL_MS: 5000,
  CACHE_SECRET: undefined,
  CACHE_TIMEOUT_MS: 100,
  CACHE_MAX_ENTRIES: 10_000,
  CACHE_MAX_BYTES: 64 * 1024 * 1024,
  UPSTREAM_BUDGET: undefined,
  IDEMPOTENCY_TTL_MS: 86_400_000,
  IDEMPOTENCY_MAX_RESPONSE_BYTES: 16_384,
  IDEMPOTENCY_MAX_ENTRIES: 10_000,
  IDEMPOTENCY_MAX_ENTRIES_PER_CALLER: 1000,
  SUBSCRIPTION_POLL_MS: 5000,
  MAX_SUBSCRIPTIONS_PER_KEY: 20,
  MAX_SUBSCRIPTIONS: 500,
  OTEL_SDK_DISABLED: false,
  OTEL_TRACES_EXPORTER: undefined,
  OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: undefined,
  OTEL_EXPORTER_OTLP_HEADERS: undefined,
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: undefined,
  OTEL_SERVICE_NAME: 'org-graphql-gateway',
  OTEL_TRACES_SAMPLER: 'parentbased_always_on',
  OTEL_TRACES_SAMPLER_ARG: 1,
} as const;

type Setting = keyof typeof DEFAULTS;
type SettingOf<T> = { [K in Setting]: (typeof DEFAULTS)[K] extends T ? K : never }[Setting];

/** The HTTP server's own bounds on its callers' connections (src/http/server.ts). */
export interface ServerSettings {
  /** Time a client has to send a request's headers, from its first byte. @default DEFAULTS.SERVER_HEADERS_TIMEOUT_MS */
  headersTimeoutMs: number;
  /** Time a client has to send a whole request, headers and body (at most MAX_REQUEST_BYTES). @default DEFAULTS.SERVER_REQUEST_TIMEOUT_MS */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open between requests. @default DEFAULTS.SERVER_KEEP_ALIVE_TIMEOUT_MS */
  keepAliveTimeoutMs: number;
  /** Open client connections at once; past it new ones are closed as they arrive. @default DEFAULTS.MAX_CONNECTIONS */
  maxConnections: number;
}

/** The cache of upstream answers and the store it lives in (src/store, src/upstream-cache). */
export interface CacheSettings {
  /** `memory` (this instance), or a Redis URL (`redis://host:port/db`) shared by every instance on it. */
  store: string;
  /** How long an upstream answer is used. @default DEFAULTS.CACHE_TTL_MS */
  ttlMs?: number;
  /** The secret caller tags are HMACs under. @default DEFAULTS.CACHE_SECRET: generated once and kept in the store (memory: per process) */
  secret?: string;
  /** How long one Redis operation may take before the store is bypassed. @default DEFAULTS.CACHE_TIMEOUT_MS */
  timeoutMs?: number;
  /** Answers kept in memory at most. @default DEFAULTS.CACHE_MAX_ENTRIES */
  maxEntries?: number;
  /** Characters (about bytes) of answers kept in memory at most. @default DEFAULTS.CACHE_MAX_BYTES */
  maxBytes?: number;
}

/** Idempotent mutations (`Idempotency-Key`, src/idempotency): what is remembered, and how long. */
export interface IdempotencySettings {
  /** How long a request's outcome is remembered for its key. @default DEFAULTS.IDEMPOTENCY_TTL_MS */
  ttlMs: number;
  /**
   * Largest response body remembered, in bytes; a larger one is remembered as "finished, response
   * not kept" (a retry is refused, never run again). @default DEFAULTS.IDEMPOTENCY_MAX_RESPONSE_BYTES
   */
  maxResponseBytes: number;
  /** Keys remembered at once in this instance's memory (no Redis); past it new keys are refused with 503. @default DEFAULTS.IDEMPOTENCY_MAX_ENTRIES */
  maxEntries: number;
  /** Keys remembered at once for one caller key (memory or Redis), so one caller cannot fill the store; past it that caller's new keys are refused with 429. @default DEFAULTS.IDEMPOTENCY_MAX_ENTRIES_PER_CALLER */
  maxEntriesPerCaller: number;
}

/** Subscriptions over SSE (src/subscriptions): the shared polls and the open streams they feed. */
export interface SubscriptionSettings {
  /** Time between two polls of a watched record (at least 250). @default DEFAULTS.SUBSCRIPTION_POLL_MS */
  pollMs: number;
  /** Open subscription streams per caller key on this instance. @default DEFAULTS.MAX_SUBSCRIPTIONS_PER_KEY */
  maxPerKey: number;
  /** Open subscription streams on this instance, all keys together (each holds a connection). @default DEFAULTS.MAX_SUBSCRIPTIONS */
  max: number;
}

/** The OTLP/HTTP encodings spans can be exported in. */
const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
type OtlpProtocol = (typeof OTLP_PROTOCOLS)[number];

/** OpenTelemetry's standard samplers (OTEL_TRACES_SAMPLER); the `*traceidratio` ones take OTEL_TRACES_SAMPLER_ARG. */
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type SamplerName = (typeof SAMPLERS)[number];

/** Where OTEL_TRACES_EXPORTER=otlp sends spans when no endpoint is set (OpenTelemetry's default for OTLP/HTTP). */
const OTLP_DEFAULT_ENDPOINT = 'http://localhost:4318/';

/**
 * Where spans are exported, and how (src/tracing). The OpenTelemetry SDK reads the variables this
 * gateway does not name itself (docs/tracing.md): the exporter's timeout, compression and
 * certificates, resource attributes, the batch processor's sizes and delays.
 */
export interface TracingSettings {
  /** The traces URL: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given, else OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`. */
  endpoint: string;
  /** @default DEFAULTS.OTEL_EXPORTER_OTLP_PROTOCOL */
  protocol: OtlpProtocol;
  /** Sent with every export (OTEL_EXPORTER_OTLP_HEADERS, with OTEL_EXPORTER_OTLP_TRACES_HEADERS over it): often a credential, never logged. */
  headers: Record<string, string>;
  /** OTEL_SERVICE_NAME; unset: `service.name` of OTEL_RESOURCE_ATTRIBUTES, else DEFAULTS.OTEL_SERVICE_NAME. */
  serviceName?: string;
  /** @default DEFAULTS.OTEL_TRACES_SAMPLER */
  sampler: SamplerName;
  /** The share of traces the `*traceidratio` samplers keep, from 0 to 1. @default DEFAULTS.OTEL_TRACES_SAMPLER_ARG */
  samplerRatio: number;
}

interface GatewayConfig {
  /** @default DEFAULTS.PORT */
  port: number;
  /** @default DEFAULTS.HOST */
  host: string;
  /** The REST base URL without `/api`; unset: start the bundled reference API with demo data. */
  upstreamUrl: string | undefined;
  /** Per upstream call, end to end: connection wait, headers, whole body, retries and their waits. @default DEFAULTS.UPSTREAM_TIMEOUT_MS */
  upstreamTimeoutMs: number;
  /** Keep-alive connections to the upstream. @default DEFAULTS.UPSTREAM_CONNECTIONS */
  upstreamConnections: number;
  /** Retries of a GET after a dropped connection or a 502/503/504. @default DEFAULTS.UPSTREAM_GET_RETRIES */
  upstreamGetRetries: number;
  /** Upstream calls one request may make; operations estimated above it are refused. @default DEFAULTS.MAX_UPSTREAM_CALLS */
  maxUpstreamCalls: number;
  /** Operations one batched request (a JSON array) may hold; a longer batch is refused whole. @default DEFAULTS.MAX_BATCH_SIZE */
  maxBatchSize: number;
  /** Upstream calls of one request in flight at once. @default DEFAULTS.UPSTREAM_CONCURRENCY_PER_REQUEST */
  upstreamConcurrencyPerRequest: number;
  /** From a request's arrival, time until its last upstream call must have ended. @default DEFAULTS.REQUEST_DEADLINE_MS */
  requestDeadlineMs: number;
  /** Estimated upstream calls of admitted requests at once; unset: 2 × UPSTREAM_CONNECTIONS. @default DEFAULTS.ADMISSION_CAPACITY */
  admissionCapacity: number | undefined;
  /** Longest predicted wait for admission; a request predicted to wait longer is refused at once. @default DEFAULTS.ADMISSION_MAX_WAIT_MS */
  admissionMaxWaitMs: number;
  /** Requests waiting for admission at once, over all callers. @default DEFAULTS.ADMISSION_MAX_QUEUED */
  admissionMaxQueued: number;
  /** List pages (of 100) a lookup of an invite or member may scan; they have no REST retrieve. @default DEFAULTS.MAX_LOOKUP_SCAN_PAGES */
  maxLookupScanPages: number;
  /** Largest upstream answer body, in bytes (8 MiB). @default DEFAULTS.MAX_UPSTREAM_RESPONSE_BYTES */
  maxUpstreamResponseBytes: number;
  /** Upstream answer bytes all calls in flight may buffer at once (256 MiB). @default DEFAULTS.MAX_UPSTREAM_BUFFERED_BYTES */
  maxUpstreamBufferedBytes: number;
  /** Most values an upstream answer over 64 KiB may hold. @default DEFAULTS.MAX_UPSTREAM_JSON_VALUES */
  maxUpstreamJsonValues: number;
  /** @default DEFAULTS.MAX_REQUEST_BYTES */
  maxRequestBytes: number;
  /** How deeply a `JSON` value may nest, in a caller's input and in an upstream answer. @default DEFAULTS.MAX_JSON_DEPTH */
  maxJsonDepth: number;
  queryLimits: {
    /** @default DEFAULTS.MAX_DEPTH */
    maxDepth: number;
    /** @default DEFAULTS.MAX_ALIASES */
    maxAliases: number;
    /** @default DEFAULTS.MAX_TOKENS */
    maxTokens: number;
    /** @default DEFAULTS.MAX_DIRECTIVES */
    maxDirectives: number;
    /** Deepest selection inside `__schema`/`__type` (the standard introspection query is 15 deep). @default DEFAULTS.MAX_INTROSPECTION_DEPTH */
    maxIntrospectionDepth: number;
    /** `__type` selections per document. @default DEFAULTS.MAX_INTROSPECTION_TYPES */
    maxIntrospectionTypes: number;
  };
  /** Operation names are cut to this many characters in log lines, metric labels and span names. @default DEFAULTS.MAX_OPERATION_NAME_LENGTH */
  maxOperationNameLength: number;
  /** Distinct values per metric label (operation names above all); later new values count as `other`. @default DEFAULTS.METRICS_MAX_LABEL_VALUES */
  metricsMaxLabelValues: number;
  /** pino level: fatal, error, warn, info, debug, trace or silent. @default DEFAULTS.LOG_LEVEL */
  logLevel: LogLevel;
  /** Append log lines to this file instead of stdout. @default DEFAULTS.LOG_FILE */
  logFile: string | undefined;
  /** Longest log line in characters: longer ones have their strings cut, or keep only their core fields. @default DEFAULTS.LOG_MAX_LINE_LENGTH */
  logMaxLineLength: number;
  /** After SIGTERM, how long in-flight requests may take before the process exits anyway. @default DEFAULTS.SHUTDOWN_GRACE_MS */
  shutdownGraceMs: number;
  /** How long `/readiness` waits for the upstream. @default DEFAULTS.READINESS_TIMEOUT_MS */
  readinessTimeoutMs: number;
  /** Origins allowed by CORS: `'*'` or a list of origins. @default DEFAULTS.CORS_ORIGINS */
  corsOrigins: '*' | string[];
  /** Require an `x-graphql-csrf` (or `apollo-require-preflight`) header on requests a browser would not pre-flight. @default DEFAULTS.CSRF_PREVENTION */
  csrfPrevention: boolean;
  /** Serve Prometheus metrics at `/metrics`. @default DEFAULTS.METRICS_ENABLED */
  metricsEnabled: boolean;
  /** Answer `x-debug-upstream: 1` with `extensions.upstreamCalls`. @default DEFAULTS.DEBUG_UPSTREAM_CALLS */
  debugUpstreamCalls: boolean;
  /** Known queries (run before, without variables) the fast path keeps; 0 turns it off. @default DEFAULTS.FAST_PATH_MAX_QUERIES */
  fastPathMaxQueries: number;
  /**
   * Run only the operations of this manifest (PERSISTED_OPERATIONS, a file), by id; unset: any
   * operation, and automatic persisted queries. @default DEFAULTS.PERSISTED_OPERATIONS
   */
  persistedOperations: OperationManifest | undefined;
  /**
   * CACHE: `memory` or a Redis URL, with CACHE_TTL_MS, CACHE_SECRET, CACHE_TIMEOUT_MS,
   * CACHE_MAX_ENTRIES and CACHE_MAX_BYTES. @default DEFAULTS.CACHE: nothing is cached across requests
   */
  cache: CacheSettings | undefined;
  /** UPSTREAM_BUDGET, e.g. `480/minute,4800/hour`: upstream calls per key and window. @default DEFAULTS.UPSTREAM_BUDGET: no budget */
  upstreamBudget: BudgetWindow[] | undefined;
  /** Idempotent mutations: how long and how much is remembered. */
  idempotency: IdempotencySettings;
  /** Subscriptions: how often a watched record is polled, and how many streams may be open. */
  subscriptions: SubscriptionSettings;
  /** The HTTP server's own bounds on its callers' connections. */
  server: ServerSettings;
  /** Span export; unset (no OTLP endpoint nor OTEL_TRACES_EXPORTER=otlp, or OTEL_SDK_DISABLED): nothing is exported. */
  tracing: TracingSettings | undefined;
  circuitBreaker: {
    /** @default DEFAULTS.CIRCUIT_BREAKER_ERROR_PERCENT */
    errorThresholdPercentage: number;
    /** @default DEFAULTS.CIRCUIT_BREAKER_MIN_CALLS */
    volumeThreshold: number;
    /** @default DEFAULTS.CIRCUIT_BREAKER_RESET_MS */
    resetTimeoutMs: number;
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): GatewayConfig {
  return {
    port: integer(env, 'PORT', 0, 65535),
    host: env.HOST?.trim() || DEFAULTS.HOST,
    upstreamUrl: upstreamUrl(env.UPSTREAM_URL),
    upstreamTimeoutMs: integer(env, 'UPSTREAM_TIMEOUT_MS', 1, 600_000),
    upstreamConnections: integer(env, 'UPSTREAM_CONNECTIONS', 1, 4096),
    upstreamGetRetries: integer(env, 'UPSTREAM_GET_RETRIES', 0, 10),
    maxUpstreamCalls: integer(env, 'MAX_UPSTREAM_CALLS', 1, 100_000),
    maxBatchSize: integer(env, 'MAX_BATCH_SIZE', 1, 1000),
    upstreamConcurrencyPerRequest: integer(env, 'UPSTREAM_CONCURRENCY_PER_REQUEST', 1, 1024),
    requestDeadlineMs: integer(env, 'REQUEST_DEADLINE_MS', 1, 600_000),
    admissionCapacity: optionalInteger(env, 'ADMISSION_CAPACITY', 1, 1_000_000),
    admissionMaxWaitMs: integer(env, 'ADMISSION_MAX_WAIT_MS', 0, 600_000),
    admissionMaxQueued: integer(env, 'ADMISSION_MAX_QUEUED', 0, 1_000_000),
    maxLookupScanPages: integer(env, 'MAX_LOOKUP_SCAN_PAGES', 1, 1000),
    maxUpstreamResponseBytes: integer(env, 'MAX_UPSTREAM_RESPONSE_BYTES', 1024, 1024 * 1024 * 1024),
    maxUpstreamBufferedBytes: integer(env, 'MAX_UPSTREAM_BUFFERED_BYTES', 1024, 64 * 1024 * 1024 * 1024),
    maxUpstreamJsonValues: integer(env, 'MAX_UPSTREAM_JSON_VALUES', 1000, 100_000_000),
    maxRequestBytes: integer(env, 'MAX_REQUEST_BYTES', 1024, 100 * 1024 * 1024),
    // At most 256: far below the depths at which JSON.stringify and graphql-jit overflow the stack.
    maxJsonDepth: integer(env, 'MAX_JSON_DEPTH', 1, 256),
    queryLimits: {
      maxDepth: integer(env, 'MAX_DEPTH', 1, 1000),
      maxAliases: integer(env, 'MAX_ALIASES', 0, 10_000),
      maxTokens: integer(env, 'MAX_TOKENS', 10, 1_000_000),
      maxDirectives: integer(env, 'MAX_DIRECTIVES', 0, 10_000),
      maxIntrospectionDepth: integer(env, 'MAX_INTROSPECTION_DEPTH', 1, 1000),
      maxIntrospectionTypes: integer(env, 'MAX_INTROSPECTION_TYPES', 0, 1000),
    },
    maxOperationNameLength: integer(env, 'MAX_OPERATION_NAME_LENGTH', 16, 10_000),
    metricsMaxLabelValues: integer(env, 'METRICS_MAX_LABEL_VALUES', 1, 100_000),
    ...loadLoggingConfig(env),
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_MS', 0, 600_000),
    readinessTimeoutMs: integer(env, 'READINESS_TIMEOUT_MS', 1, 60_000),
    corsOrigins: corsOrigins(env.CORS_ORIGINS),
    csrfPrevention: boolean(env, 'CSRF_PREVENTION'),
    metricsEnabled: boolean(env, 'METRICS_ENABLED'),
    debugUpstreamCalls: boolean(env, 'DEBUG_UPSTREAM_CALLS'),
    fastPathMaxQueries: integer(env, 'FAST_PATH_MAX_QUERIES', 0, 10_000),
    persistedOperations: persistedOperations(env.PERSISTED_OPERATIONS),
    cache: cacheSettings(env),
    upstreamBudget: upstreamBudget(env.UPSTREAM_BUDGET),
    idempotency: {
      ttlMs: integer(env, 'IDEMPOTENCY_TTL_MS', 1000, 30 * 86_400_000),
      maxResponseBytes: integer(env, 'IDEMPOTENCY_MAX_RESPONSE_BYTES', 1024, 16 * 1024 * 1024),
      maxEntries: integer(env, 'IDEMPOTENCY_MAX_ENTRIES', 1, 10_000_000),
      maxEntriesPerCaller: integer(env, 'IDEMPOTENCY_MAX_ENTRIES_PER_CALLER', 1, 10_000_000),
    },
    subscriptions: {
      pollMs: integer(env, 'SUBSCRIPTION_POLL_MS', 250, 3_600_000),
      maxPerKey: integer(env, 'MAX_SUBSCRIPTIONS_PER_KEY', 1, 100_000),
      max: integer(env, 'MAX_SUBSCRIPTIONS', 1, 1_000_000),
    },
    server: serverSettings(env),
    tracing: tracingSettings(env),
    circuitBreaker: {
      errorThresholdPercentage: integer(env, 'CIRCUIT_BREAKER_ERROR_PERCENT', 1, 100),
      volumeThreshold: integer(env, 'CIRCUIT_BREAKER_MIN_CALLS', 1, 100_000),
      resetTimeoutMs: integer(env, 'CIRCUIT_BREAKER_RESET_MS', 100, 600_000),
    },
  };
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The logging part alone: also what a gateway built without a logger (tests) logs with. */
export function loadLoggingConfig(env: Env = process.env): Pick<GatewayConfig, 'logLevel' | 'logFile' | 'logMaxLineLength'> {
  const level = env.LOG_LEVEL?.trim().toLowerCase() || DEFAULTS.LOG_LEVEL;
  if (!(LOG_LEVELS as readonly string[]).includes(level)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${env.LOG_LEVEL}").`);
  }
  return {
    logLevel: level as LogLevel,
    logFile: env.LOG_FILE?.trim() || undefined,
    logMaxLineLength: integer(env, 'LOG_MAX_LINE_LENGTH', 1024, 10_000_000),
  };
}

function boolean(env: Env, name: SettingOf<boolean>): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return DEFAULTS[name];
  if (['true', '1', 'on', 'yes'].includes(raw)) return true;
  if (['false', '0', 'off', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false (got "${env[name]}").`);
}

/** `*`, or comma-separated origins such as `https://app.example.com` (scheme, host, optional port). */
function corsOrigins(raw: string | undefined): '*' | string[] {
  const text = raw?.trim();
  if (!text || text === '*') return DEFAULTS.CORS_ORIGINS;
  return text.split(',').map((entry) => {
    const origin = entry.trim();
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== origin.replace(/\/$/, '')) {
      throw new ConfigError(`CORS_ORIGINS must be * or comma-separated origins like https://app.example.com (got "${origin}").`);
    }
    return url.origin;
  });
}

function serverSettings(env: Env): ServerSettings {
  const settings: ServerSettings = {
    headersTimeoutMs: integer(env, 'SERVER_HEADERS_TIMEOUT_MS', 100, 600_000),
    requestTimeoutMs: integer(env, 'SERVER_REQUEST_TIMEOUT_MS', 100, 3_600_000),
    keepAliveTimeoutMs: integer(env, 'SERVER_KEEP_ALIVE_TIMEOUT_MS', 100, 600_000),
    maxConnections: integer(env, 'MAX_CONNECTIONS', 1, 1_000_000),
  };
  // Node refuses a headers timeout longer than the request timeout (the headers are part of the request).
  if (settings.headersTimeoutMs > settings.requestTimeoutMs) {
    throw new ConfigError(
      `SERVER_HEADERS_TIMEOUT_MS (${settings.headersTimeoutMs}) must not be longer than SERVER_REQUEST_TIMEOUT_MS (${settings.requestTimeoutMs}).`,
    );
  }
  return settings;
}

/** CACHE_SECRET: long enough that the tags it makes cannot be matched to guessed keys by guessing it. */
const MIN_CACHE_SECRET_LENGTH = 16;

function cacheSettings(env: Env): CacheSettings | undefined {
  const store = env.CACHE?.trim();
  if (!store) return undefined;
  if (store !== 'memory' && !isRedisUrl(store) && !redisClusterTarget(store)) {
    throw new ConfigError(
      'CACHE must be `memory`, a Redis URL like redis://host:6379/0 (rediss:// for TLS), or a Redis Cluster like redis-cluster://host:6379,host2:6379.',
    );
  }
  const secret = env.CACHE_SECRET;
  if (secret !== undefined && secret !== '' && secret.length < MIN_CACHE_SECRET_LENGTH) {
    throw new ConfigError(`CACHE_SECRET must be at least ${MIN_CACHE_SECRET_LENGTH} characters long.`);
  }
  return {
    store,
    // At most an hour: a Redis generation outlives every answer that read it by far (src/store/redis-store.ts).
    ttlMs: integer(env, 'CACHE_TTL_MS', 1, 3_600_000),
    secret: secret || undefined,
    timeoutMs: integer(env, 'CACHE_TIMEOUT_MS', 1, 10_000),
    maxEntries: integer(env, 'CACHE_MAX_ENTRIES', 1, 10_000_000),
    maxBytes: integer(env, 'CACHE_MAX_BYTES', 1024, 64 * 1024 * 1024 * 1024),
  };
}

/** A Redis Cluster's seed nodes and credentials: the client finds the other nodes from them. */
interface RedisClusterTarget {
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
  tls: boolean;
}

/**
 * `redis-cluster://[user:password@]host:port[,host:port…]` (`rediss-cluster://` for TLS) as a
 * target, or undefined when `text` is not one. A cluster has no database number.
 */
export function redisClusterTarget(text: string): RedisClusterTarget | undefined {
  const match = /^(rediss?)-cluster:\/\/(?:([^@/]*)@)?([^@/?#]+)\/?$/.exec(text);
  if (!match) return undefined;
  const [, scheme, credentials, seeds] = match as unknown as [string, string, string | undefined, string];
  const nodes: RedisClusterTarget['nodes'] = [];
  for (const seed of seeds.split(',')) {
    const node = /^([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$/.exec(seed.trim());
    const port = Number(node?.[2]);
    if (!node || port < 1 || port > 65_535) return undefined;
    nodes.push({ host: (node[1] as string).replace(/^\[|\]$/g, ''), port });
  }
  const separator = credentials?.indexOf(':') ?? -1;
  try {
    const username = credentials === undefined ? '' : decodeURIComponent(separator === -1 ? credentials : credentials.slice(0, separator));
    const password = credentials === undefined || separator === -1 ? '' : decodeURIComponent(credentials.slice(separator + 1));
    return { nodes, username: username || undefined, password: password || undefined, tls: scheme === 'rediss' };
  } catch {
    return undefined; // a malformed %-escape
  }
}

/** A Redis URL, never echoed in the error: it may hold a password. */
function isRedisUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return ['redis:', 'rediss:'].includes(url.protocol) && url.hostname !== '' && /^\/?\d*$/.test(url.pathname) && !url.search && !url.hash;
  } catch {
    return false;
  }
}

function upstreamBudget(raw: string | undefined): BudgetWindow[] | undefined {
  if (!raw?.trim()) return undefined;
  try {
    return parseUpstreamBudget(raw);
  } catch (error) {
    throw new ConfigError(`UPSTREAM_BUDGET: ${(error as Error).message}`);
  }
}

function tracingSettings(env: Env): TracingSettings | undefined {
  if (boolean(env, 'OTEL_SDK_DISABLED')) return undefined;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter && exporter !== 'otlp' && exporter !== 'none') {
    throw new ConfigError(`OTEL_TRACES_EXPORTER must be otlp or none (got "${exporter}"): spans are exported over OTLP/HTTP only.`);
  }
  if (exporter === 'none') return undefined;
  const endpoint = otlpTracesUrl(env) ?? (exporter === 'otlp' ? new URL('v1/traces', OTLP_DEFAULT_ENDPOINT).href : undefined);
  if (!endpoint) return undefined;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL' : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  return {
    endpoint,
    protocol: oneOf(protocol, env[protocol], DEFAULTS.OTEL_EXPORTER_OTLP_PROTOCOL, OTLP_PROTOCOLS),
    headers: { ...otlpHeaders(env, 'OTEL_EXPORTER_OTLP_HEADERS'), ...otlpHeaders(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS') },
    serviceName: env.OTEL_SERVICE_NAME?.trim() || undefined,
    sampler: oneOf('OTEL_TRACES_SAMPLER', env.OTEL_TRACES_SAMPLER, DEFAULTS.OTEL_TRACES_SAMPLER, SAMPLERS),
    samplerRatio: ratio(env, 'OTEL_TRACES_SAMPLER_ARG'),
  };
}

/** A value from a fixed list, lower-cased; unset: `fallback`. */
function oneOf<T extends string>(name: Setting, raw: string | undefined, fallback: T, allowed: readonly T[]): T {
  const value = raw?.trim().toLowerCase() || fallback;
  if (!(allowed as readonly string[]).includes(value))
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')} (got "${value}").`);
  return value as T;
}

/** An HTTP header name (RFC 9110 token), lower case. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** `name=value,name=value`, values percent-encoded (the OTLP exporter's format). The values are secrets: no error repeats them. */
function otlpHeaders(env: Env, name: Setting): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of env[name]?.split(',') ?? []) {
    if (!pair.trim()) continue;
    const at = pair.indexOf('=');
    // Without an `=` the whole entry may be the secret: only a header name is ever named in an error.
    const header = at > 0 ? pair.slice(0, at).trim().toLowerCase() : '';
    let value: string | undefined;
    try {
      value = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      value = undefined;
    }
    if (!HEADER_NAME.test(header) || value === undefined) {
      const entry = HEADER_NAME.test(header) ? `the value of ${header}` : 'an entry without a valid name';
      throw new ConfigError(`${name} must be name=value pairs separated by commas, values percent-encoded (${entry} is not).`);
    }
    headers[header] = value;
  }
  return headers;
}

function ratio(env: Env, name: SettingOf<number>): number {
  const raw = env[name]?.trim();
  if (!raw) return DEFAULTS[name];
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || value > 1) throw new ConfigError(`${name} must be a number from 0 to 1 (got "${raw}").`);
  return value;
}

/** The OpenTelemetry rule: the traces endpoint is used as given, the general one gets the signal's path. */
function otlpTracesUrl(env: Env): string | undefined {
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return otlpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces).href;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!base) return undefined;
  return new URL('v1/traces', otlpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base.endsWith('/') ? base : `${base}/`)).href;
}

function otlpUrl(name: Setting, raw: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol)) throw new ConfigError(`${name} must be an absolute http(s) URL (got "${raw}").`);
  return url;
}

function persistedOperations(file: string | undefined): OperationManifest | undefined {
  if (!file?.trim()) return undefined;
  try {
    return readOperationManifest(file.trim());
  } catch (error) {
    throw new ConfigError(`PERSISTED_OPERATIONS: ${(error as Error).message}`);
  }
}

function integer(env: Env, name: SettingOf<number>, min: number, max: number): number {
  return optionalInteger(env, name, min, max) ?? DEFAULTS[name];
}

/** A whole number from `min` to `max`, or undefined when unset. */
function optionalInteger(env: Env, name: Setting, min: number, max: number): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}").`);
  }
  return value;
}

function upstreamUrl(raw: string | undefined): string | undefined {
  if (!raw?.trim()) return undefined;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError(`UPSTREAM_URL must be an absolute http(s) URL (got "${raw}").`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new ConfigError('UPSTREAM_URL must be an http(s) URL without query, fragment or credentials.');
  }
  if (/\/api\/?$/.test(url.pathname)) {
    throw new ConfigError('UPSTREAM_URL is the base URL without `/api` (the gateway adds it).');
  }
  return url.href.replace(/\/$/, '');
}
