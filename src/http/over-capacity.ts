// The answer to a request on a connection past MAX_CONNECTIONS (src/http/server.ts): 503 with
// OVERLOADED and Retry-After, then the connection closes. Made outside Yoga, so that refusing costs
// next to nothing; the request's body is not read (Node discards it before closing).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { overloadedMessage } from '../errors/graphql-errors.ts';

interface OverCapacityOptions {
  /** The CORS headers of an answer to this request (a page on another origin can read Retry-After); null without an `Origin`. */
  corsHeaders?(request: Pick<Request, 'headers'>): Record<string, string> | null;
  /** Told of every refusal (metrics). */
  onRefused?(): void;
  /** The request's id from its `x-request-id` (kept when safe, else a new one), as every answer carries. */
  requestIdOf?(incoming: string | null): string;
}

export function overCapacityAnswer({ corsHeaders, onRefused, requestIdOf }: OverCapacityOptions = {}) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    onRefused?.();
    // 1 or 2 s at random: clients refused together must not all come back together.
    const retryAfter = 1 + Math.round(Math.random());
    const body = JSON.stringify({
      errors: [
        {
          message: overloadedMessage(retryAfter),
          extensions: { code: 'OVERLOADED', retryAfter, limit: 'maxConnections' },
        },
      ],
    });
    const incomingId = req.headers['x-request-id'];
    const requestId = requestIdOf?.(typeof incomingId === 'string' ? incomingId : null);
    const origin = req.headers.origin;
    res.writeHead(503, {
      ...(origin && corsHeaders?.({ headers: new Headers({ origin }) })),
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'retry-after': String(retryAfter),
      'cache-control': 'no-store',
      connection: 'close',
      ...(requestId ? { 'x-request-id': requestId } : {}),
    });
    res.end(body);
  };
}
