// The request log of incremental answers (@defer over multipart/mixed, SSE, and graphql-ws): one line
// per operation, written once the last payload has left, counting the upstream calls of every
// payload and timing them all; a client that leaves mid-stream still gets exactly one line. Over HTTP
// and WebSocket on a loopback port, against the reference API answering every call 150 ms late.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { captureLogger } from '../ops/support.ts';

/** How late the reference API answers each call. */
const DELAY_MS = 150;
/** One organizations page first; then, deferred, the batch exports of each of the demo key's two organizations. */
const DEFERRED = `query Deferred {
  organizations(first: 2) { nodes { name ... @defer { batchExports(first: 2) { totalCount } } } }
}`;

let api: ReferenceApi;
let gateway: Gateway;
let log: ReturnType<typeof captureLogger>;
let http: string;
let ws: string;
const closers: (() => unknown)[] = [];

beforeAll(async () => {
  api = await startReferenceApi({ faults: { delayMs: DELAY_MS } });
  log = captureLogger('info');
  gateway = createGateway({ upstreamUrl: api.url, logger: log.logger });
  const server = createServer(gateway.listener);
  gateway.serveWebSocket(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  http = `http://127.0.0.1:${port}/graphql`;
  ws = `ws://127.0.0.1:${port}/graphql`;
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await gateway.close();
  });
});
beforeEach(() => {
  log.lines.length = 0;
  api.clearRequests();
});
afterEach(async () => {
  for (const close of closers.splice(1).reverse()) await close();
});
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await api?.close();
});

const post = (accept: string, signal?: AbortSignal) =>
  fetch(http, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${api.keys.demo}`, accept },
    body: JSON.stringify({ query: DEFERRED }),
    signal,
  });

/** What a complete deferred answer's line says: every payload's calls, and a duration past both levels' answers. */
function expectWholeLine(status = 200) {
  expect(log.requestLines()).toHaveLength(1);
  const [line] = log.requestLines();
  expect(line).toMatchObject({ operation: 'Deferred', operationType: 'query', status, upstreamCalls: 3, outcome: 'ok', errorCodes: [] });
  expect(line?.durationMs).toBeGreaterThanOrEqual(2 * DELAY_MS - 1);
}

describe('over HTTP', () => {
  it('multipart/mixed: written once the last part has left, with the deferred fragment’s calls', async () => {
    const response = await post('multipart/mixed');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the first part: the deferred calls are still on their way, nothing is logged yet
    expect(log.requestLines()).toEqual([]);
    while (!(await reader.read()).done) {}
    await expect.poll(() => log.requestLines().length).toBe(1);
    expectWholeLine();
    expect(api.requests).toHaveLength(3);
  });

  it('text/event-stream: the same', async () => {
    const response = await post('text/event-stream');
    expect(await response.text()).toContain('event: complete');
    await expect.poll(() => log.requestLines().length).toBe(1);
    expectWholeLine();
  });

  it('JSON types only (406, nothing sent): one line at once, no call', async () => {
    const response = await post('application/json');
    expect(response.status).toBe(406);
    await response.arrayBuffer();
    await expect.poll(() => log.requestLines().length).toBe(1);
    expect(log.requestLines()[0]).toMatchObject({ status: 406, upstreamCalls: 0 });
  });

  it('a client that disconnects mid-stream gets exactly one line', async () => {
    const controller = new AbortController();
    const response = await post('multipart/mixed', controller.signal);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    controller.abort();
    await reader.closed.catch(() => undefined);
    await expect.poll(() => log.requestLines().length).toBe(1);
    expect(log.requestLines()[0]).toMatchObject({ operation: 'Deferred', status: 200 });
    // Past the answers the deferred calls would have had, and a whole request after it: one line each.
    await new Promise((resolve) => setTimeout(resolve, 2 * DELAY_MS));
    await (await post('multipart/mixed')).text();
    await expect.poll(() => log.requestLines().length).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, DELAY_MS));
    expect(log.requestLines()).toHaveLength(2);
  });
});

describe('over WebSocket (graphql-ws)', () => {
  const client = () => {
    const made = createClient({
      url: ws,
      webSocketImpl: WebSocket,
      connectionParams: { Authorization: `Bearer ${api.keys.demo}` },
      retryAttempts: 0,
    });
    closers.push(() => made.dispose());
    return made;
  };

  it('a subscribe of a deferred query: written once its last `next` has left, with every payload’s calls', async () => {
    const payloads: unknown[] = [];
    let linesAtFirstPayload: number | undefined;
    await new Promise<void>((resolve, reject) => {
      client().subscribe(
        { query: DEFERRED },
        {
          next: (payload) => {
            payloads.push(payload);
            if (payloads.length === 1) linesAtFirstPayload = log.requestLines().length;
          },
          error: reject,
          complete: resolve,
        },
      );
    });
    expect(payloads.length).toBeGreaterThanOrEqual(2);
    // At the first payload the deferred calls were still on their way: nothing was logged yet.
    expect(linesAtFirstPayload).toBe(0);
    await expect.poll(() => log.requestLines().length).toBe(1);
    expectWholeLine();
  });

  it('a socket that closes mid-stream gets exactly one line', async () => {
    const socket = client();
    await new Promise<void>((resolve, reject) => {
      socket.subscribe({ query: DEFERRED }, { next: () => resolve(), error: reject, complete: () => undefined });
    });
    await socket.dispose(); // after the first payload, before the deferred one
    await expect.poll(() => log.requestLines().length).toBe(1);
    expect(log.requestLines()[0]).toMatchObject({ operation: 'Deferred', status: 200 });
    await new Promise((resolve) => setTimeout(resolve, 3 * DELAY_MS));
    expect(log.requestLines()).toHaveLength(1);
  });
});
