// The gateway's HTTP server: Node's own, with bounds on what a slow or greedy client can hold. The
// timeouts cover receiving a request (headers, then the whole body) and idle keep-alive time, never
// the sending of a response, so a long response stream (Server-Sent Events) is not cut.
import { createServer, type RequestListener, type Server } from 'node:http';

export interface ServerSettings {
  /** Time a client has to send a request's headers, from its first byte. @default 10000 */
  headersTimeoutMs: number;
  /** Time a client has to send a whole request, headers and body (at most MAX_REQUEST_BYTES). @default 30000 */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open between requests. @default 5000 */
  keepAliveTimeoutMs: number;
  /** Open client connections at once; past it new ones are closed as they arrive. @default 800 */
  maxConnections: number;
}

const DEFAULT_SERVER_SETTINGS: ServerSettings = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5000,
  maxConnections: 800,
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
