// The gateway's HTTP server: Node's own, with bounds on what a slow or greedy client can hold. The
// timeouts cover receiving a request (headers, then the whole body) and idle keep-alive time, never
// the sending of a response, so a long response stream (Server-Sent Events) is not cut.
import { createServer, type RequestListener, type Server } from 'node:http';
import { DEFAULTS, type ServerSettings } from '../config.ts';

const DEFAULT_SERVER_SETTINGS: ServerSettings = {
  headersTimeoutMs: DEFAULTS.SERVER_HEADERS_TIMEOUT_MS,
  requestTimeoutMs: DEFAULTS.SERVER_REQUEST_TIMEOUT_MS,
  keepAliveTimeoutMs: DEFAULTS.SERVER_KEEP_ALIVE_TIMEOUT_MS,
  maxConnections: DEFAULTS.MAX_CONNECTIONS,
};

/** How often Node checks the headers and request timeouts (its default, 30 s, would let them run that much over). */
export const SERVER_TIMEOUT_CHECK_MS = 250;

export function createGatewayServer(handler: RequestListener, settings: Partial<ServerSettings> = {}): Server {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnections } = { ...DEFAULT_SERVER_SETTINGS, ...settings };
  const server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: SERVER_TIMEOUT_CHECK_MS,
    },
    handler,
  );
  server.maxConnections = maxConnections;
  return server;
}
