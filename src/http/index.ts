// The gateway's HTTP surface beyond GraphQL: /readiness, CORS, CSRF prevention, and closing
// connections once shutdown has begun or when a body was left unread. (/health is in gateway.ts.)
import type { CORSOptions, Plugin } from 'graphql-yoga';
import { isGraphQLPath } from '../observability/request-log.ts';
import type { GuardedTransport } from '../upstream/resilience/circuit-breaker.ts';
import { corsHeadersOf, corsOptions, csrfPlugins } from './cors-csrf.ts';
import { createReadiness, type ReadinessOptions } from './readiness.ts';
import { closeAfterUnreadBody } from './unread-body.ts';

interface HttpOptions {
  upstreamUrl: string;
  transport: Pick<GuardedTransport, 'circuits'>;
  readinessTimeoutMs: number;
  corsOrigins: '*' | readonly string[];
  csrfPrevention: boolean;
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
  plugins: Plugin[];
  /** Readiness answers 503 and every response closes its connection from now on. */
  beginShutdown(): void;
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
  return {
    cors,
    corsHeaders: (request) => corsHeadersOf(request, cors),
    plugins: [
      readiness.plugin,
      closeWhenShuttingDown,
      closeAfterUnreadBody(),
      graphqlPathOnly(graphqlEndpoint),
      ...csrfPlugins(options.csrfPrevention),
    ],
    beginShutdown: () => readiness.beginShutdown(),
    close: () => readiness.close(),
  };
}
