// The gateway's HTTP server: Node's own, with bounds on what a slow or greedy client can hold. The
// timeouts cover receiving a request (headers, then the whole body) and idle keep-alive time, never
// the sending of a response, so a long response stream (Server-Sent Events) is not cut.
import { createServer, type RequestListener, type Server } from 'node:http';
import type { ServerSettings } from '../config/index.ts';

/** How often Node checks the headers and request timeouts (its default, 30 s, would let them run that much over). */
export const SERVER_TIMEOUT_CHECK_MS = 250;

export function createGatewayServer(handler: RequestListener, settings: ServerSettings): Server {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnections } = settings;
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
