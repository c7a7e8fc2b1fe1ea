// Every setting, declared once: its environment variable, the kind of value it takes (type and
// bounds, src/config/kinds.ts), its default and what it does. loadConfig (./index.ts) reads the
// environment through it; `npm run config:docs` prints docs/configuration.md's tables from it.
import {
  cacheStore,
  corsOrigins,
  flag,
  httpUrl,
  type Kind,
  manifestFile,
  oneOf,
  otlpHeaders,
  ratio,
  secret,
  text,
  upstreamBudget,
  upstreamUrl,
  wholeNumber,
} from './kinds.ts';

export interface Setting<T> {
  kind: Kind<NonNullable<T>>;
  /** The value when the variable is unset or blank. */
  default: T;
  /** After the default in the docs: "8 MiB", or what happens when an unset setting is unset. */
  note?: string;
  /** What the setting does (markdown, links relative to docs/). */
  description: string;
}

/** A setting with a default, or one that is `undefined` when unset (`unset` says what that means). */
function setting<T>(kind: Kind<T>, declared: { default: T; note?: string; description: string }): Setting<T>;
function setting<T>(kind: Kind<T>, declared: { unset: string; description: string }): Setting<T | undefined>;
function setting<T>(kind: Kind<T>, declared: { default?: T; note?: string; unset?: string; description: string }): Setting<T | undefined> {
  return {
    kind: kind as Kind<NonNullable<T>>,
    default: declared.default,
    note: declared.note ?? declared.unset,
    description: declared.description,
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
/** The OTLP/HTTP encodings spans can be exported in (gRPC is not). */
const OTLP_PROTOCOLS = ['http/protobuf', 'http/json'] as const;
/** OpenTelemetry's standard samplers; the `*traceidratio` ones take OTEL_TRACES_SAMPLER_ARG. */
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const DAY_MS = 86_400_000;

const upstream = {
  PORT: setting(wholeNumber(0, 65_535), { default: 4000, description: 'HTTP port (`0`: any free port; the real one is printed)' }),
  HOST: setting(text(), { default: '0.0.0.0', description: 'interface to listen on' }),
  UPSTREAM_URL: setting(upstreamUrl(), {
    unset: '',
    description: 'REST base URL without `/api`; unset starts the bundled reference API with demo data on a loopback port',
  }),
  REFERENCE_API_PORT: setting(wholeNumber(0, 65_535), {
    default: 0,
    note: 'any free port',
    description:
      'with `UPSTREAM_URL` unset: the port of the bundled reference API on `127.0.0.1`; the banner prints its address. A port in use stops the start (`cannot start the reference API on 127.0.0.1, REFERENCE_API_PORT …: EADDRINUSE`)',
  }),
  UPSTREAM_TIMEOUT_MS: setting(wholeNumber(1, 600_000), {
    default: 10_000,
    description:
      'budget of one upstream call, end to end: waiting for a pooled connection, the headers, the whole body, every retry and the waits between them; a call ends at it (plus event-loop delay) ([timeouts](limits-and-resilience.md#timeouts))',
  }),
  UPSTREAM_CONNECTIONS: setting(wholeNumber(1, 4096), {
    default: 1024,
    description:
      "keep-alive connections to the upstream (one undici pool per process), so upstream calls in flight per instance: enough for 50 dashboards' 20 parallel calls at once ([what the defaults ask of the upstream](performance.md#what-the-defaults-ask-of-the-upstream))",
  }),
  UPSTREAM_GET_RETRIES: setting(wholeNumber(0, 10), {
    default: 2,
    description:
      'retries of a GET after a 502/503/504 or a refused, timed-out or dropped connection (`ECONNREFUSED`, `ETIMEDOUT`, `UND_ERR_CONNECT_TIMEOUT`, …: [retries](limits-and-resilience.md#retries)); never of POST/PATCH/DELETE, never of a 429',
  }),
  MAX_UPSTREAM_CALLS: setting(wholeNumber(1, 100_000), {
    default: 250,
    description: 'fan-out budget: operations estimated above it are refused, and no request makes more calls',
  }),
  MAX_BATCH_SIZE: setting(wholeNumber(1, 1000), {
    default: 10,
    description:
      'operations one batched request (a JSON array, Apollo\'s `BatchHttpLink`) may hold; a longer batch is refused whole before anything runs: HTTP 400, `QUERY_TOO_COMPLEX`, `limit: "maxBatchSize"` ([batching](incremental-websocket-batching.md))',
  }),
  MAX_LOOKUP_IDS: setting(wholeNumber(1, 100_000), {
    default: 250,
    description:
      'ids one operation may look up in `node`/`nodes(ids:)` and representations in `_entities`, counted together (aliases included); past it the operation is refused with `QUERY_TOO_COMPLEX`, `limit: "maxLookupIds"`, before execution ([what an answer can echo](limits-and-resilience.md#what-an-answer-can-echo))',
  }),
  MAX_RESPONSE_BYTES: setting(wholeNumber(1024, 1024 * 1024 * 1024), {
    default: 16 * 1024 * 1024,
    note: '16 MiB',
    description:
      'largest GraphQL answer body (each payload of a stream); a larger one is replaced whole by a `QUERY_TOO_COMPLEX` error, `limit: "maxResponseBytes"`, never sent in part',
  }),
  MAX_LOOKUP_SCAN_PAGES: setting(wholeNumber(1, 1000), {
    default: 10,
    description:
      "pages (of 100) of its organization's list that a lookup of an invite or member may read (they have no REST retrieve): 10 covers the first 1,000 records; a record further down is a `QUERY_TOO_COMPLEX` error on its field",
  }),
  UPSTREAM_CONCURRENCY_PER_REQUEST: setting(wholeNumber(1, 1024), {
    default: 32,
    description: "upstream calls of one request in flight at once: a dashboard's 20 lists go in one round trip",
  }),
  REQUEST_DEADLINE_MS: setting(wholeNumber(1, 600_000), {
    default: 30_000,
    description:
      "time from a request's arrival until its last upstream call must have ended, retries included; a call in flight is cut there (as precisely as `UPSTREAM_TIMEOUT_MS`), except a write already sent, which runs to its answer within `UPSTREAM_TIMEOUT_MS` ([why](idempotency.md#a-write-once-sent-is-seen-through)), and a call that would start after it sends nothing",
  }),
};

const admission = {
  ADMISSION_CAPACITY: setting(wholeNumber(1, 1_000_000), {
    unset: '2 × `UPSTREAM_CONNECTIONS`, 2048',
    description:
      'estimated upstream calls that admitted requests may hold at once; a request weighs its fan-out estimate (at least 1, at most this) ([overload](overload.md))',
  }),
  ADMISSION_MAX_WAIT_MS: setting(wholeNumber(0, 600_000), {
    default: 2000,
    description:
      'longest predicted wait for admission: a request predicted to wait longer (or to end past its deadline) is refused at once with `OVERLOADED`; one admitted to wait is served when its turn comes, or refused if its deadline is near first; `0`: never wait',
  }),
  MAX_ADMITTED_LATENCY_MS: setting(wholeNumber(1, 600_000), {
    unset: '`ADMISSION_MAX_WAIT_MS` + `REQUEST_DEADLINE_MS` ÷ 10, at most `REQUEST_DEADLINE_MS`: 5000',
    description:
      "time from a request's arrival within which an admitted request is expected to end, its wait for admission included: one that could not start in time (its predicted wait plus a typical run past it) is refused with `OVERLOADED`, at once or when its turn has not come in time, rather than served late ([overload](overload.md#the-admitted-tail))",
  }),
  ADMISSION_MAX_QUEUED: setting(wholeNumber(0, 1_000_000), {
    default: 500,
    description:
      "requests waiting for admission at once, over all callers; when full, the longest caller's queue gives up its newest request, or the newcomer is refused",
  }),
};

const upstreamAnswers = {
  MAX_UPSTREAM_RESPONSE_BYTES: setting(wholeNumber(1024, GiB), {
    default: 8 * MiB,
    note: '8 MiB',
    description:
      'largest upstream answer body; a larger one fails its call as `UPSTREAM_ERROR`: by its `Content-Length` before any of it is read, or, without one, as soon as the bytes read pass it ([answer size](limits-and-resilience.md#upstream-answer-size))',
  }),
  MAX_UPSTREAM_BUFFERED_BYTES: setting(wholeNumber(1024, 64 * GiB), {
    default: 256 * MiB,
    note: '256 MiB',
    description:
      'upstream answer bytes all calls in flight may hold at once; a call whose next bytes would pass it fails as `UPSTREAM_ERROR`, as a too-large answer does',
  }),
  MAX_UPSTREAM_JSON_VALUES: setting(wholeNumber(1000, 100_000_000), {
    default: 100_000,
    description:
      'most values (arrays, objects, and items after a comma) an upstream answer over 64 KiB may hold; one with more, or nested more than 512 deep, fails as too large (`UPSTREAM_ERROR`, counted by no circuit) before it is parsed, which could stall the instance for seconds ([why](limits-and-resilience.md#upstream-answer-size))',
  }),
  CIRCUIT_BREAKER_ERROR_PERCENT: setting(wholeNumber(1, 100), {
    default: 50,
    description:
      "share of counted failures in a circuit's 10 s window that opens it ([which failures count](limits-and-resilience.md#circuit-breakers))",
  }),
  CIRCUIT_BREAKER_MIN_CALLS: setting(wholeNumber(1, 100_000), {
    default: 10,
    description: "calls a circuit's window must hold before the share counts",
  }),
  CIRCUIT_BREAKER_RESET_MS: setting(wholeNumber(100, 600_000), {
    default: 5000,
    description: 'how long a circuit stays open before a probe call',
  }),
};

const requests = {
  MAX_DEPTH: setting(wholeNumber(1, 1000), { default: 12, description: 'deepest selection nesting' }),
  MAX_ALIASES: setting(wholeNumber(0, 10_000), { default: 15, description: 'aliases per operation' }),
  MAX_TOKENS: setting(wholeNumber(10, 1_000_000), {
    default: 2000,
    description: 'tokens per document; also fields per document with its fragments inlined',
  }),
  MAX_DIRECTIVES: setting(wholeNumber(0, 10_000), { default: 20, description: 'directives per operation' }),
  MAX_INTROSPECTION_DEPTH: setting(wholeNumber(1, 1000), {
    default: 20,
    description: 'deepest selection inside `__schema` or `__type`, which count as 1 (the standard introspection query is 15 deep)',
  }),
  MAX_INTROSPECTION_TYPES: setting(wholeNumber(0, 1000), { default: 10, description: '`__type` lookups per document' }),
  MAX_REQUEST_BYTES: setting(wholeNumber(1024, 100 * MiB), { default: 100 * 1024, description: 'largest request body (413 above it)' }),
  // At most 256: far below the depths at which JSON.stringify and graphql-jit overflow the stack.
  MAX_JSON_DEPTH: setting(wholeNumber(1, 256), {
    default: 32,
    description:
      "deepest nesting of a `JSON` value, in a caller's input (`BAD_USER_INPUT` beyond it; also of any variable below the lists and input objects its type expects, and of undeclared ones) and in an upstream answer (that field fails)",
  }),
  SERVER_HEADERS_TIMEOUT_MS: setting(wholeNumber(100, 600_000), {
    default: 10_000,
    description: "time a client has to send a request's headers (then 408 and the connection closes); at most `SERVER_REQUEST_TIMEOUT_MS`",
  }),
  SERVER_REQUEST_TIMEOUT_MS: setting(wholeNumber(100, 3_600_000), {
    default: 30_000,
    description: 'time a client has to send a whole request, headers and body (then 408); never limits the response',
  }),
  SERVER_KEEP_ALIVE_TIMEOUT_MS: setting(wholeNumber(100, 600_000), {
    default: 5000,
    description:
      "how long an idle keep-alive connection stays open after an answer (Node closes it 1 s later than it tells the client); behind a load balancer, set it above the balancer's idle timeout",
  }),
  MAX_CONNECTIONS: setting(wholeNumber(1, 1_000_000), {
    default: 800,
    description:
      'client connections served at once; a request on a connection past it is answered 503 `OVERLOADED` with `Retry-After`, and the connection closed ([overload](overload.md#client-connections))',
  }),
  MAX_OVERFLOW_CONNECTIONS: setting(wholeNumber(0, 1_000_000), {
    default: 1000,
    description:
      'connections past `MAX_CONNECTIONS` held at once only to be refused that way; past both, a new connection is closed as it arrives, which bounds the memory a connection flood takes',
  }),
};

const operations = {
  LOG_LEVEL: setting(oneOf(LOG_LEVELS), {
    default: 'info',
    description: '`fatal`, `error`, `warn`, `info` (one line per GraphQL request), `debug`, `trace` or `silent`',
  }),
  LOG_FILE: setting(text(), {
    unset: 'stdout',
    description: 'append the JSON log lines to this file instead (created with its directory)',
  }),
  LOG_MAX_LINE_LENGTH: setting(wholeNumber(1024, 10_000_000), {
    default: 16_384,
    description:
      'longest log line, in characters: a longer one has every string cut to an eighth of this (ending in `…`) and `"truncated": true`; if it is still too long, only `level`, `time`, `pid`, `requestId` and `msg` remain',
  }),
  MAX_OPERATION_NAME_LENGTH: setting(wholeNumber(16, 10_000), {
    default: 100,
    description:
      'operation names are cut to this many characters (ending in `…`) in the request log line, in metric labels and in span names',
  }),
  SHUTDOWN_GRACE_MS: setting(wholeNumber(0, 600_000), {
    default: 10_000,
    description: 'after SIGTERM, how long requests in flight may take before the process exits anyway (exit code 1)',
  }),
  READINESS_TIMEOUT_MS: setting(wholeNumber(1, 60_000), {
    default: 2000,
    description: "how long `/readiness`'s probe of the upstream waits for an answer (reported in its body; it never makes readiness fail)",
  }),
  CORS_ORIGINS: setting(corsOrigins(), {
    default: '*',
    description:
      'origins allowed by CORS: `*` or a comma-separated list (`https://app.example.com,http://localhost:3000`); credentials are never allowed',
  }),
  CSRF_PREVENTION: setting(flag(), {
    default: false,
    description: '`true`: GET and form/plain-text POST requests need an `x-graphql-csrf` (or `apollo-require-preflight`) header, else 403',
  }),
  METRICS_ENABLED: setting(flag(), { default: true, description: 'serve Prometheus metrics at `/metrics`' }),
  METRICS_MAX_LABEL_VALUES: setting(wholeNumber(1, 100_000), {
    default: 100,
    description: 'distinct values of each metric label (operation names above all); later new values count as `other`',
  }),
  METRICS_PORT: setting(wholeNumber(1, 65_535), {
    unset: "on the gateway's own port",
    description: "serve `/metrics` on this port alone (and no longer on the gateway's), so it can stay off the public network",
  }),
  METRICS_HOST: setting(text(), {
    unset: '`HOST`',
    description: 'the interface `METRICS_PORT` listens on; set without `METRICS_PORT` it is a configuration error',
  }),
  METRICS_CACHE_MS: setting(wholeNumber(0, 600_000), {
    default: 1000,
    description: 'a scrape within this long of the last rendering of `/metrics` gets that rendering again; `0` renders every scrape',
  }),
  DEBUG_UPSTREAM_CALLS: setting(flag(), { default: true, description: 'answer `x-debug-upstream: 1` with `extensions.upstreamCalls`' }),
};

const economy = {
  PERSISTED_OPERATIONS: setting(manifestFile(), {
    unset: 'any operation; automatic persisted queries',
    description:
      "a manifest file (`examples/generated/persisted-documents.json` or Apollo's format): run only its operations, by id, and refuse query text ([persisted operations](persisted-operations.md)); the file must exist and every entry must parse",
  }),
  CACHE: setting(cacheStore(), {
    unset: 'nothing cached across requests',
    description:
      '`memory`: cache upstream GET answers per key in this instance; `redis://[user:password@]host:port/db` (or `rediss://`): in that Redis, shared by every instance on it, with read-your-writes across instances; `redis-cluster://[user:password@]host:port[,host:port…]` (or `rediss-cluster://`): in that Redis Cluster ([caching and the upstream budget](caching-and-budget.md))',
  }),
  // At most an hour: a Redis generation outlives every answer that read it by far (src/store/redis-store.ts).
  CACHE_TTL_MS: setting(wholeNumber(1, 3_600_000), {
    default: 5000,
    description: 'how long a cached answer is used; also the longest a write made outside the gateway goes unseen',
  }),
  CACHE_SECRET: setting(secret(16), {
    unset: 'generated once and kept in the store; per process with `memory`',
    description: 'the secret caller tags (HMACs of keys) are made with, at least 16 characters; set it to keep it out of Redis',
  }),
  CACHE_TIMEOUT_MS: setting(wholeNumber(1, 10_000), {
    default: 100,
    description:
      'how long Redis may take to answer one operation (a stall of the gateway’s own event loop does not count); past it Redis is set aside (cache bypassed, budget counted per instance) until it answers again, on a cluster every primary',
  }),
  CACHE_MAX_ENTRIES: setting(wholeNumber(1, 10_000_000), {
    default: 10_000,
    description: 'answers kept at most with `CACHE=memory` (least recently used dropped first)',
  }),
  CACHE_MAX_BYTES: setting(wholeNumber(1024, 64 * GiB), {
    default: 64 * MiB,
    note: '64 MiB',
    description: 'characters (about bytes) of answers kept at most with `CACHE=memory`',
  }),
  UPSTREAM_BUDGET: setting(upstreamBudget(), {
    unset: 'no budget',
    description:
      "upstream calls each key may make per window, e.g. `480/minute,4800/hour` (`second`, `minute`, `hour`, `day`), counted in Redis when `CACHE` names one, else per instance; a request whose fan-out estimate does not fit what is left is refused with `RATE_LIMITED` and `retryAfter`, and one over a window's whole limit for good (keep `MAX_UPSTREAM_CALLS` at or below the smallest limit); `x-upstream-budget: 1` reports what is left",
  }),
};

const idempotency = {
  IDEMPOTENCY_TTL_MS: setting(wholeNumber(1000, 30 * DAY_MS), {
    default: DAY_MS,
    note: '24 h',
    description:
      'how long the outcome of a mutation sent with an `Idempotency-Key` is remembered for that key ([idempotent mutations](idempotency.md)); the key is held while its request runs however short this is',
  }),
  IDEMPOTENCY_MAX_RESPONSE_BYTES: setting(wholeNumber(1024, 16 * MiB), {
    default: 16_384,
    description:
      'largest response remembered for a key; a larger one is remembered as "done, response not kept", and a retry gets `409 IDEMPOTENCY_CONFLICT` instead of a second write',
  }),
  IDEMPOTENCY_MAX_ENTRIES: setting(wholeNumber(1, 10_000_000), {
    default: 10_000,
    description:
      "keys remembered at once without Redis (this instance's memory: at most about this × 2 × `IDEMPOTENCY_MAX_RESPONSE_BYTES`, 320 MiB by default, as a response is kept JSON-escaped); past it a new key is refused with `503 IDEMPOTENCY_UNAVAILABLE`, none is forgotten early",
  }),
  IDEMPOTENCY_MAX_ENTRIES_PER_CALLER: setting(wholeNumber(1, 10_000_000), {
    default: 1000,
    description:
      'keys remembered at once for one caller key, in memory or in Redis, so one caller cannot fill the store for the others; past it that caller\'s new keys are refused with `429 IDEMPOTENCY_UNAVAILABLE` (`reason: "CALLER_LIMIT"`) until its older ones expire',
  }),
};

const subscriptions = {
  SUBSCRIPTION_POLL_MS: setting(wholeNumber(250, 3_600_000), {
    default: 5000,
    description: 'time between two polls of a watched record ([subscriptions](subscriptions.md)); a 429 stretches it to its `retryAfter`',
  }),
  MAX_SUBSCRIPTIONS_PER_KEY: setting(wholeNumber(1, 100_000), {
    default: 20,
    description:
      'open subscription streams per caller key on this instance; one more is refused with `QUERY_TOO_COMPLEX` ([why 20](subscriptions.md#limits))',
  }),
  MAX_SUBSCRIPTIONS: setting(wholeNumber(1, 1_000_000), {
    default: 500,
    description:
      'open subscription streams on this instance, all keys together; each holds a connection, so it stays below `MAX_CONNECTIONS` ([why 500](subscriptions.md#limits))',
  }),
};

const tracing = {
  OTEL_SDK_DISABLED: setting(flag(), {
    default: false,
    description: '`true`: export no spans, whatever else is set ([tracing](tracing.md))',
  }),
  OTEL_TRACES_EXPORTER: setting(oneOf(['otlp', 'none'], 'otlp or none (spans are exported over OTLP/HTTP only)'), {
    unset: '`otlp` when an endpoint is set',
    description:
      '`otlp`: export spans, to `http://localhost:4318` when no endpoint is set; `none`: export nothing; any other value is refused',
  }),
  OTEL_EXPORTER_OTLP_ENDPOINT: setting(httpUrl(), {
    unset: 'no spans exported',
    description: 'OTLP/HTTP base URL of a collector; spans go to its `/v1/traces`',
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: setting(httpUrl(), {
    unset: '',
    description: 'the full traces URL, used as given; wins over `OTEL_EXPORTER_OTLP_ENDPOINT`',
  }),
  OTEL_EXPORTER_OTLP_PROTOCOL: setting(oneOf(OTLP_PROTOCOLS), {
    default: 'http/protobuf',
    description: '`http/protobuf` or `http/json` (gRPC is refused)',
  }),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: setting(oneOf(OTLP_PROTOCOLS), {
    unset: '',
    description: 'the same, for traces only; wins over `OTEL_EXPORTER_OTLP_PROTOCOL`',
  }),
  OTEL_EXPORTER_OTLP_HEADERS: setting(otlpHeaders(), {
    unset: '',
    description:
      'headers sent with every export, `name=value` pairs separated by commas, values percent-encoded (`authorization=Bearer%20abc`); never logged, not even in a configuration error',
  }),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: setting(otlpHeaders(), {
    unset: '',
    description: 'the same, for traces only; added over `OTEL_EXPORTER_OTLP_HEADERS`',
  }),
  OTEL_SERVICE_NAME: setting(text(), {
    unset: '`service.name` of `OTEL_RESOURCE_ATTRIBUTES` when it has one, else `org-graphql-gateway`',
    description: "the spans' `service.name`",
  }),
  OTEL_TRACES_SAMPLER: setting(oneOf(SAMPLERS), {
    default: 'parentbased_always_on',
    description:
      "`always_on`, `always_off`, `traceidratio`, `parentbased_always_on`, `parentbased_always_off` or `parentbased_traceidratio`: a `parentbased_` sampler follows the caller's sampled flag",
  }),
  OTEL_TRACES_SAMPLER_ARG: setting(ratio(), {
    default: 1,
    description: 'share of new traces the `traceidratio` samplers keep, from `0` to `1`',
  }),
};

/** The areas of docs/configuration.md, each a table under its title, in this order. */
export const AREAS = [
  {
    title: 'Listening and the upstream',
    intro: 'The port the gateway listens on, and the calls it makes to the REST upstream.',
    settings: upstream,
  },
  { title: 'Admission', intro: 'How many requests run at once, and how long one may wait ([overload](overload.md)).', settings: admission },
  {
    title: 'Upstream answers and circuit breakers',
    intro:
      "How much of the upstream's answers is read, and when a failing upstream is set aside ([limits and resilience](limits-and-resilience.md)).",
    settings: upstreamAnswers,
  },
  { title: 'Requests and client connections', intro: 'What a caller may send, and how long its connection may take.', settings: requests },
  {
    title: 'Logs, metrics and the HTTP surface',
    intro: 'Logs, metrics, readiness, shutdown, CORS and CSRF ([operations](operations.md)).',
    settings: operations,
  },
  {
    title: 'Persisted operations, the cache and the upstream budget',
    intro:
      '[Persisted operations](persisted-operations.md), and [caching and the upstream budget](caching-and-budget.md). The `CACHE_*` settings are read only when `CACHE` is set.',
    settings: economy,
  },
  {
    title: 'Idempotent mutations',
    intro: 'What is remembered of a mutation sent with an `Idempotency-Key` ([idempotent mutations](idempotency.md)).',
    settings: idempotency,
  },
  { title: 'Subscriptions', intro: 'Polls and open streams ([subscriptions](subscriptions.md)).', settings: subscriptions },
  {
    title: 'Tracing',
    intro:
      'Span export over OTLP/HTTP ([tracing](tracing.md), which also lists the variables the OpenTelemetry SDK reads itself). `OTEL_SDK_DISABLED` is always read, `OTEL_TRACES_EXPORTER` unless `OTEL_SDK_DISABLED=true`, the endpoints unless export is turned off, and the rest only when spans are exported.',
    settings: tracing,
  },
];

/** Every setting, by its environment variable. */
export const SETTINGS = {
  ...upstream,
  ...admission,
  ...upstreamAnswers,
  ...requests,
  ...operations,
  ...economy,
  ...idempotency,
  ...subscriptions,
  ...tracing,
};
