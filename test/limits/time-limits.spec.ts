// The time limits hold for whole GraphQL requests over HTTP: a dripping upstream body ends at
// UPSTREAM_TIMEOUT_MS and frees its connection, REQUEST_DEADLINE_MS counts from the request's
// arrival and cuts calls that are each within their own timeout, and a query waiting for a pooled
// connection fails at its own limit instead of waiting for the connections to come free.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.ts';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway.ts';
import { createGatewayServer } from '../../src/http/server.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { createUpstreamTransport } from '../../src/upstream/transport/transport.ts';
import { DEFAULTS, TRANSPORT_DEFAULTS } from '../support/defaults.ts';
import { lateness } from '../support/lateness.ts';
import { dripBody, sendJson } from '../support/scripted-answers.ts';

const KEY = 'phx_time_limits_key';
const ORG = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbb1';
const page = (results: unknown[]) => ({ count: results.length, next: null, previous: null, results });
const org = { id: ORG, name: 'Org', teams: [] };
/** What the docs promise: a tick of the deadline clock, plus the event loop's delay meanwhile. */
const late = lateness();

let upstream: ReferenceApi | undefined;
let gateway: Gateway | undefined;
let server: Server | undefined;

beforeEach(() => late.reset());

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await gateway?.close();
  await upstream?.close();
  server = gateway = upstream = undefined;
});

/** The gateway behind its HTTP server; `post` sends one query and times it from sending to the whole answer. */
async function serve(options: Partial<GatewayOptions>) {
  const scripted = await startReferenceApi();
  const created = createGateway({ upstreamUrl: scripted.url, upstreamGetRetries: 0, ...options });
  const listening = createGatewayServer(created.listener, DEFAULTS.server);
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  [upstream, gateway, server] = [scripted, created, listening];
  const url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}/graphql`;
  async function post(query: string) {
    const startedAt = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as { data?: any; errors?: any[] };
    return { body, tookMs: performance.now() - startedAt };
  }
  await post('{ __typename }'); // warm: the first request pays for the connection and Yoga's start-up
  return { upstream: scripted, post };
}

describe('UPSTREAM_TIMEOUT_MS', () => {
  it('ends a query whose upstream body drips at the limit, and its connection serves the next query at once', async () => {
    const { upstream, post } = await serve({ upstreamTimeoutMs: 500, upstreamConnections: 1 });
    let drip: Promise<void> | undefined;
    upstream.answerWith((req, res) => {
      if (req.path === `/api/organizations/${ORG}/`) drip = dripBody(res, 150);
      else sendJson(res, 200, page([org]));
    });

    const slow = await post(`{ organization(databaseId: "${ORG}") { name } }`);
    expect(slow.body).toMatchObject({
      data: { organization: null },
      errors: [{ path: ['organization'], extensions: { code: 'UPSTREAM_TIMEOUT' } }],
    });
    expect(slow.tookMs).toBeGreaterThanOrEqual(500);
    expect(slow.tookMs).toBeLessThan(500 + late.allowedMs());
    await drip;

    const next = await post('{ organizations { totalCount } }');
    expect(next.body).toEqual({ data: { organizations: { totalCount: 1 } } });
    expect(next.tookMs).toBeLessThan(200);
  });
});

describe('REQUEST_DEADLINE_MS', () => {
  it('cuts a request whose calls are each within UPSTREAM_TIMEOUT_MS but together past the deadline', async () => {
    const { upstream, post } = await serve({ upstreamTimeoutMs: 5000, requestDeadlineMs: 500 });
    // Two levels, 300 ms each: the second call starts at ~300 ms and is cut at 500 ms.
    upstream.answerWith((req, res) => setTimeout(() => sendJson(res, 200, page(req.path === '/api/organizations/' ? [org] : [])), 300));
    const { body, tookMs } = await post('{ organizations { nodes { name batchExports { totalCount } } } }');
    expect(body.data).toEqual({ organizations: { nodes: [{ name: 'Org', batchExports: null }] } });
    expect(body.errors).toMatchObject([{ path: ['organizations', 'nodes', 0, 'batchExports'], extensions: { code: 'UPSTREAM_TIMEOUT' } }]);
    expect(tookMs).toBeGreaterThanOrEqual(500);
    expect(tookMs).toBeLessThan(500 + late.allowedMs());
    expect(upstream.requests.map((r) => r.path)).toEqual(['/api/organizations/', `/api/organizations/${ORG}/batch_exports/`]);
  });

  it('counts from the request’s arrival: a request that arrived longer ago than the deadline sends nothing', async () => {
    const scripted = await startReferenceApi();
    upstream = scripted;
    scripted.answerWith((_req, res) => sendJson(res, 200, page([])));
    const transport = createUpstreamTransport({ baseUrl: scripted.url, ...TRANSPORT_DEFAULTS });
    try {
      const request = new Request('http://gateway.test/graphql', { headers: { authorization: `Bearer ${KEY}` } });
      const limits = { maxCalls: 10, concurrency: 4, deadlineMs: 1000, maxLookupScanPages: 10 };
      const lateArrival = createContext(transport, request, limits, { requestId: 'late', receivedAt: performance.now() - 1000 });
      await expect(lateArrival.rest().listOrganizations()).rejects.toMatchObject({ kind: 'timeout', sent: false });
      expect(scripted.requests).toHaveLength(0);
      const onTime = createContext(transport, request, limits, { requestId: 'on-time', receivedAt: performance.now() - 900 });
      await expect(onTime.rest().listOrganizations()).resolves.toBeDefined();
      expect(scripted.requests).toHaveLength(1);
    } finally {
      await transport.close();
    }
  });
});

describe('waiting for a pooled connection', () => {
  it('with both connections held by drips, a query fails at its own deadline without sending its call', async () => {
    // Admission would hold the drips back (the query's estimate, 21 calls, fills 4 × 2 connections):
    // room for all three, so that they meet in the pool (admission: test/limits/overload.spec.ts).
    const { upstream, post } = await serve({
      upstreamTimeoutMs: 5000,
      requestDeadlineMs: 400,
      upstreamConnections: 2,
      admissionCapacity: 100,
    });
    upstream.answerWith((req, res) => {
      if (req.path === `/api/organizations/${ORG}/`) return void dripBody(res, 100);
      if (req.path === '/api/organizations/') return void setTimeout(() => sendJson(res, 200, page([org])), 250);
      return sendJson(res, 200, page([]));
    });
    // The query's first call takes one connection for 250 ms; meanwhile two drips take the other
    // and then that one, so its second call waits for a connection from ~250 ms on.
    const query = post('{ organizations { nodes { batchExports { totalCount } } } }');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const drips = [0, 1].map(() => post(`{ organization(databaseId: "${ORG}") { name } }`));

    const { body, tookMs } = await query;
    expect(body.errors).toMatchObject([{ path: ['organizations', 'nodes', 0, 'batchExports'], extensions: { code: 'UPSTREAM_TIMEOUT' } }]);
    expect(tookMs).toBeGreaterThanOrEqual(400);
    expect(tookMs).toBeLessThan(400 + late.allowedMs());
    for (const drip of await Promise.all(drips)) expect(drip.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_TIMEOUT');
    // The batch exports call was never written: it was dropped once a connection came free.
    expect(upstream.requests.map((r) => r.path).sort()).toEqual([
      '/api/organizations/',
      `/api/organizations/${ORG}/`,
      `/api/organizations/${ORG}/`,
    ]);
  });
});
