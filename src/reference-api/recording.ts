// What the server keeps of each /api request, for tests to assert what the gateway sent.
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { flattenHeaders, recordableBody } from './http.ts';

export interface RecordedRequest {
  method: string;
  /** Without the query string, as received (percent-encoding kept). */
  path: string;
  /** The last value of each query parameter. */
  query: Record<string, string>;
  /** Lower-cased names. */
  headers: Record<string, string>;
  /** Parsed JSON; the raw text if it is not JSON; undefined when there is no body. */
  body: unknown;
  /** When it had been read (`performance.now()`, ms): with a `faults.delayMs`, which calls were in flight together. */
  receivedAt: number;
}

export function recordRequest(req: IncomingMessage, method: string, path: string, url: URL, rawBody: string): RecordedRequest {
  return {
    method,
    path,
    query: Object.fromEntries(url.searchParams),
    headers: flattenHeaders(req.headers),
    body: recordableBody(rawBody),
    receivedAt: performance.now(),
  };
}
