// The gateway's HTTP surface beyond GraphQL: /readiness, CORS, CSRF prevention, and closing
// connections once shutdown has begun. (/health is in gateway.ts.)
import type { CORSOptions, Plugin } from 'graphql-yoga';
import type { GuardedTransport } from '../rest/circuit-breaker.ts';
import { corsOptions, csrfPlugins } from './cors-csrf.ts';
import { createReadiness, type ReadinessOptions } from './readiness.ts';

export interface HttpOptions {
  upstreamUrl: string;
  transport: Pick<GuardedTransport, 'circuits'>;
  /** @default DEFAULTS.READINESS_TIMEOUT_MS */
  readinessTimeoutMs?: number;
  /** @default DEFAULTS.CORS_ORIGINS */
  corsOrigins?: '*' | readonly string[];
  /** @default DEFAULTS.CSRF_PREVENTION */
  csrfPrevention?: boolean;
  /** The shared store's state, reported by /readiness (CACHE). */
  cacheStore?: ReadinessOptions['cacheStore'];
}

interface HttpSurface {
  /** Yoga's `cors` option. */
  cors: CORSOptions;
  plugins: Plugin[];
  /** Readiness answers 503 and every response closes its connection from now on. */
  beginShutdown(): void;
  close(): Promise<void>;
}

export function createHttpSurface(options: HttpOptions): HttpSurface {
  const readiness = createReadiness({
    upstreamUrl: options.upstreamUrl,
    timeoutMs: options.readinessTimeoutMs,
    transport: options.transport,
    cacheStore: options.cacheStore,
  });
  const closeWhenShuttingDown: Plugin = {
    onResponse({ response }) {
      if (readiness.shuttingDown) response.headers.set('connection', 'close');
    },
  };
  return {
    cors: corsOptions(options.corsOrigins),
    plugins: [readiness.plugin, closeWhenShuttingDown, ...csrfPlugins(options.csrfPrevention)],
    beginShutdown: () => readiness.beginShutdown(),
    close: () => readiness.close(),
  };
}
