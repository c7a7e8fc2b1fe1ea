// GraphQL over WebSocket (contract: GraphQL over WebSocket) with graphql-ws's own client, against the
// gateway's Node server on a loopback port and the reference API: a query (deferred too), a mutation,
// and a subscription that pushes after the mutation; the key from connection_init or the upgrade;
// graphql-ws's and ws's closes; subscriptions counted with SSE's; SIGTERM; readiness and metrics.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Client, createClient } from 'graphql-ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { subscribe as subscribeOverSse } from '../support/sse.ts';

let api: ReferenceApi;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  api = await startReferenceApi();
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});
afterAll(() => api?.close());

interface Served {
  gateway: Gateway;
  server: Server;
  http: string;
  ws: string;
}

async function served(options: Partial<GatewayOptions> = {}): Promise<Served> {
  const gateway = createGateway({ upstreamUrl: api.url, subscriptions: { pollMs: 60_000 }, ...options });
  const server = createServer(gateway.listener);
  gateway.serveWebSocket(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await gateway.close();
  });
  return { gateway, server, http: `http://127.0.0.1:${port}/graphql`, ws: `ws://127.0.0.1:${port}/graphql` };
}

function client(url: string, connectionParams?: Record<string, unknown>, extra: Partial<Parameters<typeof createClient>[0]> = {}): Client {
  const made = createClient({ url, webSocketImpl: WebSocket, connectionParams, retryAttempts: 0, ...extra });
  closers.push(() => made.dispose() as Promise<void>);
  return made;
}

const bearer = () => ({ Authorization: `Bearer ${api.keys.demo}` });

/** Every `next` of one operation, once it completed (or its error). */
function results(on: Client, query: string, variables?: Record<string, unknown>) {
  return new Promise<unknown[]>((resolve, reject) => {
    const seen: unknown[] = [];
    on.subscribe({ query, variables }, { next: (value) => seen.push(value), error: reject, complete: () => resolve(seen) });
  });
}

/** The global id of the first organization's first domain, read over the WebSocket at `ws`. */
async function firstDomainId(ws: string): Promise<string> {
  const [listed] = (await results(
    client(ws, bearer()),
    '{ organizations(first: 1) { nodes { domains(first: 1) { nodes { id } } } } }',
  )) as {
    data: { organizations: { nodes: { domains: { nodes: { id: string }[] } }[] } };
  }[];
  return listed?.data.organizations.nodes[0]?.domains.nodes[0]?.id as string;
}

/** A raw socket, for what graphql-ws's client would never send; resolves with its close code. */
function rawSocket(url: string, protocol = 'graphql-transport-ws', headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, protocol, { headers });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  const opened = new Promise<void>((resolve, reject) => {
    socket.on('open', () => resolve());
    socket.on('error', reject);
  });
  closers.push(async () => socket.terminate());
  return { socket, opened, closed };
}

describe('operations', () => {
  it('runs a query, a mutation, and a subscription that pushes after the mutation', async () => {
    const { ws } = await served();
    const on = client(ws, bearer());
    const [listed] = (await results(on, '{ organizations(first: 1) { nodes { batchExports(first: 1) { nodes { id paused } } } } }')) as {
      data: { organizations: { nodes: { batchExports: { nodes: { id: string; paused: boolean }[] } }[] } };
    }[];
    const exported = listed?.data.organizations.nodes[0]?.batchExports.nodes[0] as { id: string; paused: boolean };
    expect(exported.paused).toBe(false);

    const pushed: unknown[] = [];
    let firstEvent: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => {
      firstEvent = resolve;
    });
    let pausedEvent: () => void = () => undefined;
    const pausedSeen = new Promise<void>((resolve) => {
      pausedEvent = resolve;
    });
    const unsubscribe = on.subscribe(
      { query: 'subscription ($id: ID!) { batchExport(id: $id) { paused } }', variables: { id: exported.id } },
      {
        next(value) {
          pushed.push(value);
          if (pushed.length === 1) firstEvent();
          if ((value.data as { batchExport?: { paused: boolean } })?.batchExport?.paused) pausedEvent();
        },
        error: () => undefined,
        complete: () => undefined,
      },
    );
    await arrived;
    const mutation = await results(
      on,
      'mutation ($id: ID!) { pauseBatchExport(input: { id: $id }) { __typename ... on PauseBatchExportPayload { batchExport { paused } } } }',
      {
        id: exported.id,
      },
    );
    expect(mutation).toEqual([{ data: { pauseBatchExport: { __typename: 'PauseBatchExportPayload', batchExport: { paused: true } } } }]);
    await pausedSeen; // the poll interval is a minute: only the write can have pushed it
    unsubscribe();
    expect(pushed).toEqual([{ data: { batchExport: { paused: false } } }, { data: { batchExport: { paused: true } } }]);
    await results(on, 'mutation ($id: ID!) { unpauseBatchExport(input: { id: $id }) { __typename } }', { id: exported.id });
  });

  it('delivers @defer as several `next` messages', async () => {
    const { ws } = await served();
    const payloads = await results(
      client(ws, bearer()),
      '{ organizations(first: 1) { nodes { name ... @defer { domains { totalCount } } } } }',
    );
    expect(payloads).toEqual([
      { data: { organizations: { nodes: [{ name: 'Hedgehog Analytics' }] } }, hasNext: true },
      { incremental: [{ data: { domains: { totalCount: 2 } }, path: ['organizations', 'nodes', 0] }], hasNext: false },
    ]);
  });

  it('takes the key from the upgrade request when connection_init has none', async () => {
    const { ws } = await served();
    const on = client(ws, undefined, {
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols: string) {
          super(address, protocols, { headers: { authorization: `Bearer ${api.keys.demo}` } });
        }
      },
    });
    expect(await results(on, '{ organizations { totalCount } }')).toEqual([{ data: { organizations: { totalCount: 2 } } }]);
  });

  it('validation errors come as an `error` message; limit refusals as `next` with errors, then complete', async () => {
    const { ws } = await served({ maxUpstreamCalls: 1 });
    const on = client(ws, bearer());
    await expect(results(on, '{ nope }')).rejects.toEqual([expect.objectContaining({ message: expect.stringContaining('nope') })]);
    api.clearRequests();
    const [refused] = (await results(on, '{ organizations { nodes { domains { totalCount } } } }')) as {
      errors: { extensions: unknown }[];
    }[];
    expect(refused?.errors[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxUpstreamCalls' });
    expect(api.requests).toEqual([]);
  });
});

describe('hostile sockets', () => {
  it('no key: closed with 4403 before any upstream call', async () => {
    const { ws } = await served();
    api.clearRequests();
    const { socket, opened, closed } = rawSocket(ws);
    await opened;
    socket.send(JSON.stringify({ type: 'connection_init', payload: {} }));
    expect(await closed).toEqual({ code: 4403, reason: 'Forbidden' });
    expect(api.requests).toEqual([]);
  });

  it('a socket that never sends connection_init is closed with 4408 after 3 s', async () => {
    const { ws } = await served();
    const { opened, closed } = rawSocket(ws);
    await opened;
    expect((await closed).code).toBe(4408);
  });

  it('a second connection_init: 4429; a subscribe before the ack: 4401; another subprotocol: 4406', async () => {
    const { ws } = await served();
    const twice = rawSocket(ws);
    await twice.opened;
    twice.socket.send(JSON.stringify({ type: 'connection_init', payload: bearer() }));
    twice.socket.send(JSON.stringify({ type: 'connection_init', payload: bearer() }));
    expect((await twice.closed).code).toBe(4429);

    const early = rawSocket(ws);
    await early.opened;
    early.socket.send(JSON.stringify({ type: 'subscribe', id: '1', payload: { query: '{ __typename }' } }));
    expect((await early.closed).code).toBe(4401);

    const other = rawSocket(ws, 'graphql-ws');
    await other.opened.catch(() => undefined);
    expect((await other.closed).code).toBe(4406);
  });

  it('a message over MAX_REQUEST_BYTES closes the socket with 1009', async () => {
    const { ws } = await served({ maxRequestBytes: 1024 });
    const { socket, opened, closed } = rawSocket(ws);
    await opened;
    socket.send(JSON.stringify({ type: 'connection_init', payload: { ...bearer(), padding: 'x'.repeat(2000) } }));
    expect((await closed).code).toBe(1009);
  });

  it('a flood of subscribes is held to MAX_SUBSCRIPTIONS_PER_KEY, counted with SSE streams', async () => {
    const { http, ws } = await served({ subscriptions: { pollMs: 60_000, maxPerKey: 3, max: 100 } });
    const id = await firstDomainId(ws);
    const sse = await subscribeOverSse(http, 'subscription ($id: ID!) { domain(id: $id) { id } }', { id }, api.keys.demo);
    closers.push(() => sse.close());
    await sse.waitForEvents(1);

    const on = client(ws, bearer());
    const outcomes = await Promise.all(
      Array.from(
        { length: 20 },
        () =>
          new Promise<string>((resolve) => {
            on.subscribe(
              { query: 'subscription ($id: ID!) { domain(id: $id) { id } }', variables: { id } },
              {
                next: (value) => resolve(value.errors ? String(value.errors[0]?.extensions?.limit) : 'open'),
                error: () => resolve('error'),
                complete: () => undefined,
              },
            );
          }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'open')).toHaveLength(2); // 3 per key, one taken by SSE
    expect(outcomes.filter((outcome) => outcome === 'maxSubscriptionsPerKey')).toHaveLength(18);
  });
});

describe('operations of the process', () => {
  it('readiness and /metrics count open sockets; SIGTERM completes every operation, then closes with 1001', async () => {
    const { gateway, http, ws } = await served();
    const { socket, opened, closed } = rawSocket(ws);
    await opened;
    const messages: { type: string; id?: string }[] = [];
    socket.on('message', (data) => messages.push(JSON.parse(data.toString())));
    socket.send(JSON.stringify({ type: 'connection_init', payload: bearer() }));
    await expect.poll(() => messages.some((message) => message.type === 'connection_ack')).toBe(true);

    const readiness = await (await fetch(http.replace('/graphql', '/readiness'))).json();
    expect(readiness.webSockets).toEqual({ open: 1 });
    const metrics = await (await fetch(http.replace('/graphql', '/metrics'))).text();
    expect(metrics).toMatch(/^gateway_websocket_connections 1$/m);

    const id = await firstDomainId(ws);
    socket.send(
      JSON.stringify({
        type: 'subscribe',
        id: 's1',
        payload: { query: 'subscription ($id: ID!) { domain(id: $id) { id } }', variables: { id } },
      }),
    );
    await expect.poll(() => messages.some((message) => message.type === 'next' && message.id === 's1')).toBe(true);

    gateway.beginShutdown();
    expect((await closed).code).toBe(1001);
    expect(messages.at(-1)).toEqual({ type: 'complete', id: 's1' });
  });
});
