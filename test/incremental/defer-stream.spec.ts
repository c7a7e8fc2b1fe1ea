// @defer and @stream (contract: Incremental delivery) over HTTP on a loopback port, against the
// reference API: Apollo Client 4 renders the deferred dashboard incrementally and ends on the
// non-deferred answer; the first multipart part leaves before a slowed upstream answers the deferred
// calls; SSE and 406 by Accept; the estimate, admission and errors cover every payload.
import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DashboardDocument, DeferredDashboardDocument } from '../../examples/generated/graphql.ts';
import { createGateway } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi, USE_ROUTES } from '../../src/reference-api/index.ts';
import { serveOverHttp } from '../support/http-server.ts';

let api: ReferenceApi;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  api = await startReferenceApi();
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(() => api?.close());

/** The gateway, over HTTP, in front of `upstreamUrl` (the reference API unless given). */
async function served(options: Partial<Parameters<typeof createGateway>[0]> = {}) {
  const gateway = createGateway({ upstreamUrl: api.url, ...options });
  const http = await serveOverHttp(gateway);
  closers.push(async () => {
    await http.close();
    await gateway.close();
  });
  return { gateway, url: http.url };
}

/** A reference API of its own (the same demo data) that holds the answer to every path `slow` matches for `delayMs`. */
async function slowedUpstream(
  slow: (path: string) => boolean,
  delayMs: number,
): Promise<ReferenceApi & { answeredAt: Map<string, number> }> {
  const slowed = await startReferenceApi();
  const answeredAt = new Map<string, number>();
  slowed.answerWith(async (req) => {
    if (slow(req.path)) await new Promise((resolve) => setTimeout(resolve, delayMs));
    answeredAt.set(req.path, performance.now()); // the routes answer at once
    return USE_ROUTES;
  });
  closers.push(() => slowed.close());
  return Object.assign(slowed, { answeredAt });
}

const post = (url: string, query: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${api.keys.demo}`, ...headers },
    body: JSON.stringify({ query }),
  });

const DEFERRED_LISTS = `query Deferred {
  organizations(first: 2) { nodes { name ... @defer(label: "lists") { batchExports(first: 2) { totalCount } } } }
}`;

describe('@defer with Apollo Client 4 (Defer20220824Handler)', () => {
  it('sees at least two results for the deferred dashboard, the last equal to the non-deferred answer', async () => {
    // At the real service's latency: the deferred lists answer 200 ms after the organizations.
    const upstream = await slowedUpstream((path) => path !== '/api/organizations/', 200);
    const { url } = await served({ upstreamUrl: upstream.url });
    const client = new ApolloClient({
      link: new HttpLink({ uri: url, headers: { authorization: `Bearer ${api.keys.demo}` } }),
      cache: new InMemoryCache(),
      incrementalHandler: new Defer20220824Handler(),
    });
    const whole = await client.query({ query: DashboardDocument, fetchPolicy: 'no-cache' }); // kept out of the cache: it would complete the first payload

    const results = await new Promise<unknown[]>((resolve, reject) => {
      const seen: unknown[] = [];
      const subscription = client.watchQuery({ query: DeferredDashboardDocument, fetchPolicy: 'network-only' }).subscribe({
        next(result) {
          if (result.dataState === 'empty') return; // the loading state before any payload
          seen.push(result.data);
          if (result.dataState === 'complete') {
            subscription.unsubscribe();
            resolve(seen);
          }
        },
        error: reject,
      });
    });
    client.stop();

    expect(results.length).toBeGreaterThanOrEqual(2);
    const first = results[0] as { organizations: { nodes: Record<string, unknown>[] } };
    expect(first.organizations.nodes[0]).not.toHaveProperty('batchExports');
    expect(results.at(-1)).toEqual(whole.data);
  });
});

describe('multipart/mixed', () => {
  it('sends the first part before the deferred upstream calls (slowed to 200 ms) have answered', async () => {
    const upstream = await slowedUpstream((path) => path.includes('/batch_exports/'), 200);
    const { url } = await served({ upstreamUrl: upstream.url });
    const response = await post(url, DEFERRED_LISTS, { accept: 'multipart/mixed' });
    expect(response.headers.get('content-type')).toBe('multipart/mixed; boundary="-"');

    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    let firstPartAt: number | undefined;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      if (firstPartAt === undefined && text.includes('"hasNext":true')) firstPartAt = performance.now();
    }
    const parts = text
      .split('\r\n---')
      .map((part) => part.slice(part.indexOf('{')))
      .filter((part) => part.startsWith('{'))
      .map((part) => JSON.parse(part.trim()));

    expect(parts[0]).toEqual({
      data: { organizations: { nodes: [{ name: 'Hedgehog Analytics' }, { name: 'Prickly Labs' }] } },
      hasNext: true,
    });
    expect(parts.at(-1)).toMatchObject({ hasNext: false });
    const deferred = parts.slice(1).flatMap((part) => part.incremental);
    expect(deferred.map((payload: { data: unknown; path: unknown[] }) => [payload.path, payload.data]).sort()).toEqual(
      [
        [['organizations', 'nodes', 0], { batchExports: { totalCount: 35 } }],
        [['organizations', 'nodes', 1], { batchExports: { totalCount: 3 } }],
      ].sort(),
    );
    const batchExportCalls = upstream.requests.filter((r) => r.path.includes('/batch_exports/'));
    expect(batchExportCalls).toHaveLength(2);
    const firstDeferredAnswer = Math.min(...batchExportCalls.map((r) => upstream.answeredAt.get(r.path) as number));
    expect(firstPartAt).toBeLessThan(firstDeferredAnswer);
  });

  it('is what no Accept and */* get; a query sent again is answered the same way, never whole', async () => {
    const { url } = await served();
    for (const accept of [undefined, '*/*', 'multipart/mixed']) {
      const response = await post(url, DEFERRED_LISTS, accept ? { accept } : {});
      expect(response.headers.get('content-type')).toBe('multipart/mixed; boundary="-"');
      expect(await response.text()).toContain('"hasNext":false');
    }
  });

  it('a deferred fragment whose upstream call fails carries its error in its own payload', async () => {
    const failing = await startReferenceApi();
    failing.answerWith((req, res) =>
      req.path.includes('/batch_exports/') ? res.writeHead(500, { 'content-type': 'application/json' }).end('{}') : USE_ROUTES,
    );
    closers.push(() => failing.close());
    const { url } = await served({ upstreamUrl: failing.url, upstreamGetRetries: 0 });
    const text = await (await post(url, DEFERRED_LISTS, { accept: 'multipart/mixed' })).text();
    const payloads = text
      .split('\r\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    expect(payloads[0]).toMatchObject({ data: { organizations: { nodes: [{ name: 'Hedgehog Analytics' }, { name: 'Prickly Labs' }] } } });
    expect(payloads[0].errors).toBeUndefined();
    const incremental = payloads.slice(1).flatMap((payload) => payload.incremental);
    expect(incremental).toHaveLength(2);
    for (const entry of incremental) {
      expect(entry.data).toEqual({ batchExports: null });
      expect(entry.errors[0].extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstreamStatus: 500 });
    }
  });
});

describe('by Accept', () => {
  it('text/event-stream: one `next` event per payload, then `complete`', async () => {
    const { url } = await served();
    const response = await post(url, DEFERRED_LISTS, { accept: 'text/event-stream' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await response.text()).split('\n\n').filter((block) => block.startsWith('event:'));
    expect(events.map((block) => block.split('\n')[0])).toEqual(['event: next', 'event: next', 'event: next', 'event: complete']);
    expect(JSON.parse(events[0]?.split('data: ')[1] as string)).toMatchObject({ hasNext: true });
    expect(JSON.parse(events[2]?.split('data: ')[1] as string)).toMatchObject({ hasNext: false });
  });

  it('JSON types only: HTTP 406, and no upstream call', async () => {
    const { url } = await served();
    api.clearRequests();
    for (const accept of ['application/json', 'application/graphql-response+json']) {
      expect((await post(url, DEFERRED_LISTS, { accept })).status).toBe(406);
    }
    expect(api.requests).toEqual([]);
  });

  it('an operation without @defer still answers JSON', async () => {
    const { url } = await served();
    const response = await post(url, '{ organizations { totalCount } }', { accept: 'application/json' });
    expect(await response.json()).toEqual({ data: { organizations: { totalCount: 2 } } });
  });
});

describe('limits cover every payload', () => {
  it('a deferred fragment counts in the estimate: over the budget, one payload with QUERY_TOO_COMPLEX, no upstream call', async () => {
    const { url } = await served({ maxUpstreamCalls: 2 });
    api.clearRequests();
    const response = await post(url, DEFERRED_LISTS, { accept: 'multipart/mixed' });
    const payloads = (await response.text())
      .split('\r\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    expect(payloads).toHaveLength(1);
    expect(payloads[0].data).toBeUndefined();
    expect(payloads[0].errors[0].extensions).toMatchObject({
      code: 'QUERY_TOO_COMPLEX',
      limit: 'maxUpstreamCalls',
      estimate: 3,
      budget: 2,
    });
    expect(api.requests).toEqual([]);
  });

  it('a client that disconnects mid-stream gives its admission weight back: the next request is admitted', async () => {
    const upstream = await slowedUpstream((path) => path.includes('/batch_exports/'), 200);
    // Room for exactly one such operation (estimate 3) at a time, without a queue.
    const { url } = await served({ upstreamUrl: upstream.url, admissionCapacity: 3, admissionMaxQueued: 0 });
    const controller = new AbortController();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${api.keys.demo}`, accept: 'multipart/mixed' },
      body: JSON.stringify({ query: DEFERRED_LISTS }),
      signal: controller.signal,
    });
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the first part
    controller.abort();
    await reader.closed.catch(() => undefined);
    // Once the gateway has seen the disconnect, the weight is free again.
    await expect
      .poll(async () => {
        const again = await post(url, DEFERRED_LISTS, { accept: 'multipart/mixed' });
        return again.status === 200 && (await again.text()).includes('"hasNext":false');
      })
      .toBe(true);
  });

  it('@stream(initialCount) on a connection: the first items, then the rest in page order, the page fetched once', async () => {
    const { url } = await served();
    api.clearRequests();
    const query = `{ organizations(first: 1) { nodes { batchExports(first: 4) { nodes @stream(initialCount: 1) { name } } } } }`;
    const payloads = (await (await post(url, query, { accept: 'multipart/mixed' })).text())
      .split('\r\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    const first = payloads[0].data.organizations.nodes[0].batchExports.nodes;
    expect(first).toHaveLength(1);
    const streamed = payloads
      .slice(1)
      .flatMap((payload) => (payload.incremental ?? []).flatMap((entry: { items: unknown[] }) => entry.items));
    const whole = await (await post(url, query.replace(' @stream(initialCount: 1)', ''), { accept: 'application/json' })).json();
    expect([...first, ...streamed]).toEqual(whole.data.organizations.nodes[0].batchExports.nodes);
    expect(api.requests.filter((r) => r.path.endsWith('/batch_exports/'))).toHaveLength(2); // once for the stream, once for the whole answer
  });
});
