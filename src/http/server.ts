// The gateway's HTTP server: Node's own, with bounds on what a slow or greedy client can hold. The
// timeouts cover receiving a request (headers, then the whole body) and idle keep-alive time, never
// the sending of a response, so a long response stream (Server-Sent Events) is not cut.
//
// Connections past MAX_CONNECTIONS are not reset: each request on one is answered 503 OVERLOADED
// with Retry-After, and the connection closed, so a client can tell overload from a network fault.
// Only past MAX_CONNECTIONS + MAX_OVERFLOW_CONNECTIONS is a new connection closed as it arrives
// (Node's `maxConnections`), which bounds what a connection flood can hold.
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { ServerSettings } from '../config/index.ts';
import { overCapacityAnswer } from './over-capacity.ts';

/** How often Node checks the headers and request timeouts (its default, 30 s, would let them run that much over). */
export const SERVER_TIMEOUT_CHECK_MS = 250;

/** Answered on an overflow connection as on any other: the liveness probe must not fail for a flood. */
const ALWAYS_SERVED = new Set(['/health']);

/** `refuseOverCapacity`: answers a request on a connection past MAX_CONNECTIONS (the gateway's adds CORS headers and counts it). */
export function createGatewayServer(handler: RequestListener, settings: ServerSettings, refuseOverCapacity = overCapacityAnswer()): Server {
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxConnections, maxOverflowConnections } = settings;
  const overflow = new WeakSet<Socket>();
  let open = 0;
  const server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: requestTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: SERVER_TIMEOUT_CHECK_MS,
    },
    (req, res) => {
      if (overflow.has(req.socket) && !ALWAYS_SERVED.has(pathOf(req))) refuseOverCapacity(req, res);
      else handler(req, res);
    },
  );
  server.on('connection', (socket: Socket) => {
    open += 1;
    if (open > maxConnections) overflow.add(socket);
    socket.once('close', () => {
      open -= 1;
    });
  });
  server.maxConnections = maxConnections + maxOverflowConnections;
  return server;
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
