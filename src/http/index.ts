// The gateway's HTTP surface beyond GraphQL: /readiness, CORS, CSRF prevention, and closing
// connections once shutdown has begun. (/health is in gateway.ts.)
import type { CORSOptions, Plugin } from 'graphql-yoga';
import { DEFAULTS } from '../config.ts';
import { isGraphQLPath } from '../observability/request-log.ts';
import type { GuardedTransport } from '../rest/circuit-breaker.ts';
import { corsHeadersOf, corsOptions, csrfPlugins } from './cors-csrf.ts';
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
  /** Open WebSocket connections, reported by /readiness. */
  openWebSockets?: ReadinessOptions['openWebSockets'];
}

interface HttpSurface {
  /** Yoga's `cors` option. */
  cors: CORSOptions;
  /** The CORS headers Yoga's CORS plugin adds to an answer to this request, for answers made outside Yoga; null without an `Origin`. */
  corsHeaders(request: Pick<Request, 'headers'>): Record<string, string> | null;
  /** CSRF prevention is on: a GET (or another request sent without a pre-flight) must carry its header. */
  csrfPrevention: boolean;
  plugins: Plugin[];
  /** Readiness answers 503 and every response closes its connection from now on. */
  beginShutdown(): void;
  shuttingDown(): boolean;
  close(): Promise<void>;
}

/**
 * Yoga runs GraphQL for any URL whose text ends in the endpoint (`/x/graphql`, `POST
 * /metrics?x=/graphql`), outside the request log, its metrics and its span, which follow the
 * endpoint's path. Only the endpoint, with or without a trailing slash, is GraphQL: the rest is 404.
 * Placed after the plugins that answer their own paths (/readiness, /metrics, GraphiQL's assets).
 */
function graphqlPathOnly(endpoint: string): Plugin {
  return {
    onRequest({ url, fetchAPI, endResponse }) {
      if (!isGraphQLPath(url.pathname, endpoint)) endResponse(new fetchAPI.Response(null, { status: 404 }));
    },
  };
}

/** `graphqlEndpoint`: where GraphQL is served (Yoga's option of that name). */
export function createHttpSurface(options: HttpOptions, graphqlEndpoint: string): HttpSurface {
  const readiness = createReadiness({
    upstreamUrl: options.upstreamUrl,
    timeoutMs: options.readinessTimeoutMs,
    transport: options.transport,
    cacheStore: options.cacheStore,
    openWebSockets: options.openWebSockets,
  });
  const closeWhenShuttingDown: Plugin = {
    onResponse({ response }) {
      if (readiness.shuttingDown) response.headers.set('connection', 'close');
    },
  };
  const cors = corsOptions(options.corsOrigins);
  const csrfPrevention = options.csrfPrevention ?? DEFAULTS.CSRF_PREVENTION;
  return {
    cors,
    corsHeaders: (request) => corsHeadersOf(request, cors),
    csrfPrevention,
    plugins: [readiness.plugin, closeWhenShuttingDown, graphqlPathOnly(graphqlEndpoint), ...csrfPlugins(csrfPrevention)],
    beginShutdown: () => readiness.beginShutdown(),
    shuttingDown: () => readiness.shuttingDown,
    close: () => readiness.close(),
  };
}
