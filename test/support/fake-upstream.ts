// A recording HTTP upstream on a loopback port: each test sets the handler and reads back exactly
// what the gateway sent (method, raw path, query, headers, body), plus the faults a broken upstream
// commits (a dripping body, a huge body, a dropped or reset connection).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The raw request-target path, before any decoding. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: string;
  /** `performance.now()` when the whole request had been read. */
  receivedAt: number;
}

/** Its return value is ignored (so `res.writeHead(...).end()` is a handler body). */
export type FakeHandler = (req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => unknown;

export interface FakeUpstream {
  /** `http://127.0.0.1:<port>` */
  url: string;
  requests: RecordedRequest[];
  handle(handler: FakeHandler): void;
  close(): Promise<void>;
}

/** Answers 200 `{}` until a test sets its own handler. `port`: listen there (e.g. one that refused connections until now). */
export async function startFakeUpstream(port = 0): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  let handler: FakeHandler = (_req, res) => sendJson(res, 200, {});
  const server = createServer(async (raw, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of raw) chunks.push(chunk as Buffer);
    const target = raw.url ?? '/';
    const queryStart = target.indexOf('?');
    const recorded: RecordedRequest = {
      method: raw.method ?? '',
      path: queryStart === -1 ? target : target.slice(0, queryStart),
      query: Object.fromEntries(new URLSearchParams(queryStart === -1 ? '' : target.slice(queryStart + 1))),
      headers: raw.headers,
      body: Buffer.concat(chunks).toString('utf8'),
      receivedAt: performance.now(),
    };
    requests.push(recorded);
    await handler(recorded, res, raw);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    handle(next) {
      handler = next;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Sends the headers and half a body, then cuts the connection. */
export function dropMidResponse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
  res.write('{"id":');
  setImmediate(() => res.socket?.destroy());
}

/**
 * A 200 whose headers come at once and whose body then arrives one byte every `intervalMs`, for
 * ever (a valid JSON prefix of spaces). Resolves when the gateway closes the connection.
 */
export function dripBody(res: ServerResponse, intervalMs = 150): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json' }); // chunked: no length to finish at
  res.write('[');
  const drip = setInterval(() => res.write(' '), intervalMs);
  return new Promise((resolve) =>
    res.on('close', () => {
      clearInterval(drip);
      resolve();
    }),
  );
}

/** What `streamBody` managed to hand to the socket before the gateway stopped reading. */
export interface StreamedBody {
  bytesWritten: number;
  /** Resolves once the body is done or the connection is gone. */
  done: Promise<void>;
}

/** A 200 with a chunked body of `totalBytes`, written in 64 KiB pieces as fast as the socket takes them. */
export function streamBody(res: ServerResponse, totalBytes: number): StreamedBody {
  res.writeHead(200, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(64 * 1024, ' ');
  const streamed: StreamedBody = { bytesWritten: 0, done: Promise.resolve() };
  streamed.done = new Promise((resolve) => {
    res.on('close', () => resolve());
    const writeMore = () => {
      while (streamed.bytesWritten < totalBytes && !res.destroyed) {
        const piece = chunk.subarray(0, Math.min(chunk.length, totalBytes - streamed.bytesWritten));
        streamed.bytesWritten += piece.length;
        if (!res.write(piece)) return void res.once('drain', writeMore);
      }
      if (!res.destroyed) res.end();
    };
    writeMore();
  });
  return streamed;
}

/** A loopback port with nothing listening on it. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** Sends `text` as the body exactly as given: an answer JSON.stringify cannot write, or one that is not JSON. */
export function sendText(res: ServerResponse, status: number, text: string, contentType = 'application/json'): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** JSON text of objects (`{"a":{"a":…}}`) or arrays nested `depth` levels: deeper than JSON.stringify can write. */
export function deepJsonText(depth: number, kind: 'object' | 'array' = 'object'): string {
  return kind === 'object' ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** Stands, inside a value given to `jsonText`, for JSON nested `depth` levels deep. */
export class DeepJson {
  constructor(
    readonly depth: number,
    readonly kind: 'object' | 'array' = 'object',
  ) {}
}

/** JSON text of `value`, with every DeepJson in it written out as `deepJsonText`. */
export function jsonText(value: unknown): string {
  const deep: DeepJson[] = [];
  const text = JSON.stringify(value, (_key, inner: unknown) => (inner instanceof DeepJson ? `\u0000deep:${deep.push(inner) - 1}` : inner));
  return text.replace(/"\\u0000deep:(\d+)"/g, (_match, index: string) => {
    const { depth, kind } = deep[Number(index)] as DeepJson;
    return deepJsonText(depth, kind);
  });
}

/** A wrong-shaped answer: its name and how the fake sends it. */
export type WrongAnswer = [name: string, send: (res: ServerResponse) => void];

/** Answers no list or record endpoint may give: the gateway must treat each as an upstream failure. */
export const WRONG_BODIES: WrongAnswer[] = [
  ['a body of []', (res) => sendJson(res, 200, [])],
  ['a body of null', (res) => sendJson(res, 200, null)],
  ['a body of 42', (res) => sendJson(res, 200, 42)],
  ['a string body', (res) => sendJson(res, 200, '../../x LEAK')],
  ['an HTML page', (res) => sendText(res, 200, '<html><body>LEAK ../../x</body></html>', 'text/html')],
  ['a 204', (res) => res.writeHead(204).end()],
  ['an empty 200', (res) => sendText(res, 200, '')],
];
