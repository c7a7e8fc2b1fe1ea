// A recording HTTP upstream on a loopback port: each test sets the handler and reads back exactly
// what the gateway sent (method, raw path, query, headers, body).
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** The raw request-target path, before any decoding. */
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: string;
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

/** A loopback port with nothing listening on it. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
