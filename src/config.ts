// The only reader of process.env: every setting typed, defaulted and checked at start.

export interface GatewayConfig {
  /** @default 4000 */
  port: number;
  /** @default '0.0.0.0' */
  host: string;
  /** The REST base URL without `/api`; unset: start the bundled reference API with demo data. */
  upstreamUrl: string | undefined;
  /** Per upstream call, retries included. @default 10000 */
  upstreamTimeoutMs: number;
  /** Keep-alive connections to the upstream. @default 64 */
  upstreamConnections: number;
  /** Retries of a GET after a dropped connection or a 502/503/504. @default 2 */
  upstreamGetRetries: number;
  /** Upstream calls one request may make; operations estimated above it are refused. @default 250 */
  maxUpstreamCalls: number;
  /** Upstream calls of one request in flight at once. @default 16 */
  upstreamConcurrencyPerRequest: number;
  /** Time one request may spend on upstream calls, retries included. @default 30000 */
  requestDeadlineMs: number;
  circuitBreaker: {
    /** @default 50 */
    errorThresholdPercentage: number;
    /** @default 10 */
    volumeThreshold: number;
    /** @default 5000 */
    resetTimeoutMs: number;
  };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env): GatewayConfig {
  return {
    port: integer(env, 'PORT', 4000, 0, 65535),
    host: env.HOST?.trim() || '0.0.0.0',
    upstreamUrl: upstreamUrl(env.UPSTREAM_URL),
    upstreamTimeoutMs: integer(env, 'UPSTREAM_TIMEOUT_MS', 10_000, 1, 600_000),
    upstreamConnections: integer(env, 'UPSTREAM_CONNECTIONS', 64, 1, 4096),
    upstreamGetRetries: integer(env, 'UPSTREAM_GET_RETRIES', 2, 0, 10),
    maxUpstreamCalls: integer(env, 'MAX_UPSTREAM_CALLS', 250, 1, 100_000),
    upstreamConcurrencyPerRequest: integer(env, 'UPSTREAM_CONCURRENCY_PER_REQUEST', 16, 1, 1024),
    requestDeadlineMs: integer(env, 'REQUEST_DEADLINE_MS', 30_000, 1, 600_000),
    circuitBreaker: {
      errorThresholdPercentage: integer(env, 'CIRCUIT_BREAKER_ERROR_PERCENT', 50, 1, 100),
      volumeThreshold: integer(env, 'CIRCUIT_BREAKER_MIN_CALLS', 10, 1, 100_000),
      resetTimeoutMs: integer(env, 'CIRCUIT_BREAKER_RESET_MS', 5000, 100, 600_000),
    },
  };
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
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
