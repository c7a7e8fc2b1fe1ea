// Answers a test scripts into the reference API (`api.answerWith`, src/reference-api/scripted.ts):
// the odd answers of a broken or surprising upstream, exactly as a test needs them (a chosen status
// or text, a dripping or huge body, a connection cut mid-answer, JSON nested too deep to stringify).
import type { ServerResponse } from 'node:http';

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

/** A wrong-shaped answer: its name and how it is sent. */
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
