// The gateway's HTTP server bounds what a slow or greedy client can hold: headers and whole requests
// have a time limit, idle keep-alive connections close, and connections past both caps are closed as
// they arrive (those past MAX_CONNECTIONS alone are refused with 503: connection-overflow.spec.ts). Normal requests and long response streams are not affected. Raw sockets (node:net)
// play the slow clients.
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { SERVER_TIMEOUT_CHECK_MS } from '../../src/http/server.ts';
import type { ReferenceApi } from '../../src/reference-api/index.ts';
import { useGatewayServer } from '../support/gateway-server.ts';
import { sendJson } from '../support/scripted-answers.ts';

/** Node checks the timeouts every SERVER_TIMEOUT_CHECK_MS; plus room for a loaded test machine. */
const LATE_MS = SERVER_TIMEOUT_CHECK_MS + 250;

const { serve, serveGateway, rawClient, api } = useGatewayServer();
/** The reference API scripted to answer an empty organization list. */
const emptyOrganizations = (scripted: ReferenceApi) =>
  scripted.answerWith((_req, res) => sendJson(res, 200, { count: 0, next: null, previous: null, results: [] }));

/** Writes `text` one character every `intervalMs` until the socket closes. */
function drip(socket: Socket, text: string, intervalMs: number): void {
  let at = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || at >= text.length) return void clearInterval(timer);
    socket.write(text[at++] as string);
  }, intervalMs);
  socket.on('close', () => clearInterval(timer));
}

const QUERY = JSON.stringify({ query: '{ organizations { totalCount } }' });
const HEAD = `POST /graphql HTTP/1.1\r\nHost: gateway.test\r\nContent-Type: application/json\r\nAuthorization: Bearer phx_server_key\r\n`;

describe('slow clients', () => {
  it('a request body sent one byte at a time is cut at SERVER_REQUEST_TIMEOUT_MS with 408', async () => {
    const port = await serveGateway({ headersTimeoutMs: 300, requestTimeoutMs: 800 }, emptyOrganizations);
    const client = await rawClient(port);
    const startedAt = performance.now();
    client.socket.write(`${HEAD}Content-Length: ${QUERY.length}\r\n\r\n`);
    drip(client.socket, QUERY, 100); // the headers are complete: only the request timeout applies
    const closedAt = await client.closed;
    expect(closedAt - startedAt).toBeGreaterThanOrEqual(800 - 5);
    expect(closedAt - startedAt).toBeLessThan(800 + LATE_MS);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(api().requests).toHaveLength(0);
  });

  it('headers that never end are cut at SERVER_HEADERS_TIMEOUT_MS', async () => {
    const port = await serveGateway({ headersTimeoutMs: 400, requestTimeoutMs: 5000 }, emptyOrganizations);
    const client = await rawClient(port);
    const startedAt = performance.now();
    client.socket.write(HEAD);
    drip(client.socket, `X-Slow: ${'a'.repeat(100)}`, 50);
    const closedAt = await client.closed;
    expect(closedAt - startedAt).toBeGreaterThanOrEqual(400 - 5);
    expect(closedAt - startedAt).toBeLessThan(400 + LATE_MS);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("an idle keep-alive connection is closed SERVER_KEEP_ALIVE_TIMEOUT_MS (+ Node's 1 s margin) after its last answer", async () => {
    const port = await serveGateway({ keepAliveTimeoutMs: 300 }, emptyOrganizations);
    const client = await rawClient(port);
    client.socket.write(`${HEAD}Content-Length: ${QUERY.length}\r\n\r\n${QUERY}`);
    await expect.poll(() => client.received()).toMatch(/"totalCount":0/);
    const answeredAt = performance.now();
    const closedAt = await client.closed;
    // The client is told `Keep-Alive: timeout=0` (whole seconds, rounded down) so it closes first;
    // Node itself closes 1 s after the setting, so no request crosses the server's close.
    expect(client.received()).toMatch(/\r\nKeep-Alive: timeout=0\r\n/i);
    expect(closedAt - answeredAt).toBeGreaterThanOrEqual(1300 - 100);
    expect(closedAt - answeredAt).toBeLessThan(1300 + LATE_MS);
  });
});

describe('the connection cap', () => {
  it('closes connections past MAX_CONNECTIONS + MAX_OVERFLOW_CONNECTIONS as they arrive, and takes new ones once below it', async () => {
    const port = await serveGateway({ maxConnections: 2, maxOverflowConnections: 0 }, emptyOrganizations);
    const holders = [await rawClient(port), await rawClient(port)];
    for (const holder of holders) holder.socket.write(HEAD); // unfinished requests hold their connections

    const refused = await rawClient(port);
    const connectedAt = performance.now();
    refused.socket.write(`${HEAD}Content-Length: ${QUERY.length}\r\n\r\n${QUERY}`);
    expect((await refused.closed) - connectedAt).toBeLessThan(200);
    expect(refused.received()).toBe(''); // closed unanswered

    holders[0]?.socket.destroy();
    await holders[0]?.closed;
    await expect
      .poll(async () => {
        const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: 'Bearer phx_server_key' },
          body: QUERY,
        }).catch(() => undefined);
        return response?.status;
      })
      .toBe(200);
  });
});

describe('what the bounds leave alone', () => {
  it('normal requests, over a kept-alive connection, with every bound small', async () => {
    const port = await serveGateway(
      { headersTimeoutMs: 200, requestTimeoutMs: 300, keepAliveTimeoutMs: 1000, maxConnections: 4 },
      emptyOrganizations,
    );
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer phx_server_key' },
        body: QUERY,
      });
      expect(await response.json()).toEqual({ data: { organizations: { totalCount: 0 } } });
    }
    expect(api().requests).toHaveLength(3);
  });

  it('a response streamed for longer than SERVER_REQUEST_TIMEOUT_MS (as Server-Sent Events will be) is not cut', async () => {
    const port = await serve(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        let sent = 0;
        const timer = setInterval(() => {
          res.write(`data: ${++sent}\n\n`);
          if (sent === 10) {
            clearInterval(timer);
            res.end();
          }
        }, 100);
      },
      { headersTimeoutMs: 200, requestTimeoutMs: 300 },
    );
    const startedAt = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/events`);
    const text = await response.text();
    expect(performance.now() - startedAt).toBeGreaterThan(900); // three times the request timeout
    expect(text.match(/^data: \d+$/gm)).toHaveLength(10);
  });
});
