// A subscription's poll meets a 429 (from the upstream, or from the key's own UPSTREAM_BUDGET): the
// subscriber gets a RATE_LIMITED error event, the stream goes on, and the next poll waits at least
// `retryAfter`. Against the reference API with scripted answers, whose recorded calls carry their arrival times.
import { afterEach, expect, it } from 'vitest';
import { parseUpstreamBudget } from '../../src/config/upstream-budget.ts';
import { createGateway, type GatewayOptions } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { serveOverHttp } from '../support/http-server.ts';
import { sendJson } from '../support/scripted-answers.ts';
import { subscribe } from '../support/sse.ts';

const ORG = '0b4c6f3e-2f1a-4c1e-9a51-6d2b8e0c1a11';
const EXPORT = '5d1e7f3a-9b2c-4d8e-8f60-1a2b3c4d5e6f';
const EXPORT_PATH = `/api/organizations/${ORG}/batch_exports/${EXPORT}/`;
const ID = btoa(`BatchExport:${ORG}:${EXPORT}`);
const OTHER = '6e2f8a4b-0c3d-4e9f-9a71-2b3c4d5e6f70';
const OTHER_ID = btoa(`BatchExport:${ORG}:${OTHER}`);
const QUERY = 'subscription ($id: ID!) { batchExport(id: $id) { name paused } }';
const record = (paused: boolean) => ({ id: EXPORT, name: 'watched', paused, destination: { type: 'S3', config: {} }, latest_runs: [] });

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function served(upstream: ReferenceApi, options: Partial<GatewayOptions> = {}) {
  const gateway = createGateway({ upstreamUrl: upstream.url, subscriptions: { pollMs: 250 }, ...options });
  const server = await serveOverHttp(gateway);
  cleanups.push(
    () => gateway.close(),
    () => server.close(),
  );
  return { gateway, url: server.url };
}

async function fakeUpstream() {
  const upstream = await startReferenceApi();
  cleanups.push(() => upstream.close());
  return upstream;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({ status, body, headers });

it('an upstream 429 is a RATE_LIMITED event, the stream goes on, and the next poll waits Retry-After', async () => {
  const upstream = await fakeUpstream();
  const answers = [json(429, { detail: 'slow down' }, { 'retry-after': '1' }), json(200, record(false)), json(200, record(true))];
  upstream.answerWith((_req, res) => {
    const answer = answers.length > 1 ? (answers.shift() as ReturnType<typeof json>) : (answers[0] as ReturnType<typeof json>);
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
  });
  const { url } = await served(upstream);
  const subscription = await subscribe(url, QUERY, { id: ID }, 'phx_test_key');
  const [limited, first, changed] = await subscription.waitForEvents(3, 4000);
  expect(limited?.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 1, upstreamStatus: 429 });
  expect(first).toEqual({ data: { batchExport: { name: 'watched', paused: false } } });
  expect(changed).toEqual({ data: { batchExport: { name: 'watched', paused: true } } });
  expect(subscription.completed()).toBe(false);
  const polls = upstream.requests.filter((r) => r.path === EXPORT_PATH);
  // Backed off for the Retry-After second, then the usual interval again.
  expect((polls[1]?.receivedAt ?? 0) - (polls[0]?.receivedAt ?? 0)).toBeGreaterThanOrEqual(990);
  expect((polls[2]?.receivedAt ?? 0) - (polls[1]?.receivedAt ?? 0)).toBeLessThan(900);
  expect(polls.every((r) => r.method === 'GET' && r.headers.authorization === 'Bearer phx_test_key')).toBe(true);
  await subscription.close();
});

it('every 429 is its own RATE_LIMITED event, and the data after them is sent even when unchanged', async () => {
  const upstream = await fakeUpstream();
  const limited = json(429, { detail: 'slow down' }, { 'retry-after': '1' });
  const answers = [json(200, record(false)), limited, limited, json(200, record(false))];
  upstream.answerWith((_req, res) => {
    const answer = answers.length > 1 ? (answers.shift() as ReturnType<typeof json>) : (answers[0] as ReturnType<typeof json>);
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
  });
  const { url } = await served(upstream);
  const subscription = await subscribe(url, QUERY, { id: ID }, 'phx_test_key');
  const events = await subscription.waitForEvents(4, 6000);
  expect(events.map((event) => event.errors?.[0]?.extensions?.code ?? event.data)).toEqual([
    { batchExport: { name: 'watched', paused: false } },
    'RATE_LIMITED',
    'RATE_LIMITED',
    { batchExport: { name: 'watched', paused: false } },
  ]);
  await subscription.close();
});

it('any other error is sent once while it repeats: a poll failing the same way, or a field the upstream keeps sending unrepresentable', async () => {
  const upstream = await fakeUpstream();
  const failing = json(500, { detail: 'boom' });
  const answers = [json(200, record(false)), failing, failing, failing, json(200, record(false))];
  upstream.answerWith((req, res) => {
    // Another watcher's record keeps an unrepresentable date on every poll.
    if (req.path.includes(OTHER)) return sendJson(res, 200, { ...record(false), id: OTHER, created_at: 'not a date' });
    const answer = answers.length > 1 ? (answers.shift() as ReturnType<typeof json>) : (answers[0] as ReturnType<typeof json>);
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
  });
  const { url } = await served(upstream, { upstreamGetRetries: 0 });
  const failed = await subscribe(url, QUERY, { id: ID }, 'phx_test_key');
  const partial = await subscribe(
    url,
    'subscription ($id: ID!) { batchExport(id: $id) { name createdAt } }',
    { id: OTHER_ID },
    'phx_test_key',
  );
  const events = await failed.waitForEvents(3, 4000);
  expect(events.map((event) => event.errors?.[0]?.extensions?.code ?? event.data)).toEqual([
    { batchExport: { name: 'watched', paused: false } },
    'UPSTREAM_ERROR',
    { batchExport: { name: 'watched', paused: false } },
  ]);
  expect(upstream.requests.filter((r) => r.path.includes(OTHER)).length).toBeGreaterThanOrEqual(4);
  expect(partial.events).toHaveLength(1);
  expect(partial.events[0]?.errors?.map((error) => error.extensions?.code)).toEqual(['UPSTREAM_ERROR']);
  await Promise.all([failed.close(), partial.close()]);
});

it('with the cache and UPSTREAM_BUDGET on, polls count against the key: past it, RATE_LIMITED without an upstream call', async () => {
  const upstream = await fakeUpstream();
  upstream.answerWith((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(record(false))));
  const { url } = await served(upstream, { cache: { store: 'memory', ttlMs: 1 }, upstreamBudget: parseUpstreamBudget('2/minute') });
  const subscription = await subscribe(url, QUERY, { id: ID }, 'phx_budget_key');
  const [first, refused] = await subscription.waitForEvents(2, 3000);
  expect(first).toEqual({ data: { batchExport: { name: 'watched', paused: false } } });
  expect(refused?.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', limit: 'upstreamBudget' });
  const retryAfter = refused?.errors?.[0]?.extensions?.retryAfter as number;
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  // Two polls were made (the budget), the third was refused before reaching the upstream.
  expect(upstream.requests.filter((r) => r.path === EXPORT_PATH)).toHaveLength(2);
  expect(subscription.completed()).toBe(false);
  await subscription.close();
});

it('after a 429 whose Retry-After is shorter than the interval, a mutation through the gateway does not poll sooner', async () => {
  const upstream = await fakeUpstream();
  let polls = 0;
  upstream.answerWith((req, res) => {
    if (req.headers.authorization !== 'Bearer phx_test_key') return sendJson(res, 200, record(true));
    polls += 1;
    if (polls === 1) return sendJson(res, 429, { detail: 'slow down' }, { 'retry-after': '3' });
    return sendJson(res, 200, record(true));
  });
  const { url } = await served(upstream, { subscriptions: { pollMs: 5000 } });
  const subscription = await subscribe(url, QUERY, { id: ID }, 'phx_test_key');
  const [limited] = await subscription.waitForEvents(1, 3000);
  expect(limited?.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 3 });
  const paused = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer phx_writer_key' },
    body: JSON.stringify({ query: 'mutation ($id: ID!) { pauseBatchExport(input: { id: $id }) { __typename } }', variables: { id: ID } }),
  });
  expect(await paused.json()).toEqual({ data: { pauseBatchExport: { __typename: 'PauseBatchExportPayload' } } });
  expect(upstream.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  // Well within the 3 s the upstream asked for: the 429 is still the only poll.
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(polls).toBe(1);
  await subscription.close();
});
