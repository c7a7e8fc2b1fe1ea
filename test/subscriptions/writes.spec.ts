// Which writes through the gateway re-poll subscriptions, counted as the watching key's poll GETs at
// the reference API (scripted answers): only a write that may have changed the watched record (2xx, or an
// outcome unknown such as a 5xx), never a refused one or a create in the list above the record, and
// for a burst of writes at most one poll per WRITE_POLL_GAP_MS. The interval is a minute here, so
// every poll after the first is a write's.
import { afterEach, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { WRITE_POLL_GAP_MS } from '../../src/subscriptions/poller.ts';
import { serveOverHttp } from '../support/http-server.ts';
import { sendJson } from '../support/scripted-answers.ts';
import { type SseSubscription, subscribe } from '../support/sse.ts';

const ORG = '0b4c6f3e-2f1a-4c1e-9a51-6d2b8e0c1a11';
const EXPORTS = ['5d1e7f3a-9b2c-4d8e-8f60-1a2b3c4d5e6f', '6e2f8a4b-0c3d-4e9f-9a71-2b3c4d5e6f70'];
const WATCH = 'subscription ($id: ID!) { batchExport(id: $id) { paused } }';
const PAUSE = 'mutation ($id: ID!) { pauseBatchExport(input: { id: $id }) { __typename } }';
const VICTIM = 'phx_victim_key';
const WRITER = 'phx_writer_key';
const exportId = (id: string) => btoa(`BatchExport:${ORG}:${id}`);
const record = (id: string) => ({ id, name: 'watched', paused: false, destination: { type: 'S3', config: {} }, latest_runs: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The upstream's scripted answer: every GET with its export, and each write with `answerWrite`'s status. */
async function served(answerWrite: (method: string, path: string, key: string) => number) {
  const upstream = await startReferenceApi();
  upstream.answerWith((req, res) => {
    const key = String(req.headers.authorization).slice('Bearer '.length);
    const id = EXPORTS.find((exportUuid) => req.path.includes(exportUuid)) ?? (EXPORTS[0] as string);
    if (req.method === 'GET') return sendJson(res, 200, record(id));
    const status = answerWrite(req.method, req.path, key);
    return sendJson(res, status, status < 300 ? record(id) : { detail: 'no' });
  });
  const gateway = createGateway({ upstreamUrl: upstream.url, subscriptions: { pollMs: 60_000 } });
  const server = await serveOverHttp(gateway);
  cleanups.push(
    () => upstream.close(),
    () => gateway.close(),
    () => server.close(),
  );
  const run = async (query: string, variables: Record<string, unknown>, key: string) => {
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as { errors?: { extensions: { code: string } }[] };
  };
  const watchAll = async () => {
    const subscriptions: SseSubscription[] = [];
    for (const id of EXPORTS) subscriptions.push(await subscribe(server.url, WATCH, { id: exportId(id) }, VICTIM));
    cleanups.push(() => Promise.all(subscriptions.map((subscription) => subscription.close())));
    await Promise.all(subscriptions.map((subscription) => subscription.waitForEvents(1)));
  };
  /** The victim key's poll GETs of one export since the start, the first one included. */
  const victimPolls = (id: string) =>
    upstream.requests.filter((r) => r.method === 'GET' && r.path.includes(id) && r.headers.authorization === `Bearer ${VICTIM}`).length;
  return { upstream, run, watchAll, victimPolls };
}

const pathsOf = (upstream: ReferenceApi, method: string) => upstream.requests.filter((r) => r.method === method).map((r) => r.path);

it('a write the upstream refuses (4xx), or a create in a list above the record, re-polls nothing', async () => {
  const { upstream, run, watchAll, victimPolls } = await served((_method, path, key) => {
    if (key !== WRITER) return 401;
    return path.endsWith('/pause/') ? 403 : 201;
  });
  await watchAll();
  for (let i = 0; i < 5; i++) {
    const created = await run('mutation { createOrganization(input: { name: "x" }) { __typename } }', {}, `phx_bogus_${i}`);
    expect(created.errors?.[0]?.extensions.code).toBe('UNAUTHENTICATED');
    const paused = await run(PAUSE, { id: exportId(EXPORTS[0] as string) }, WRITER);
    expect(paused.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
  }
  // Both writes reached the upstream and were refused; a create of an export in the watched ones' list succeeds.
  const created = await run(
    `mutation ($org: ID!) { createBatchExport(input: { organizationId: $org, name: "new", model: "events", interval: "hour",
      destination: { type: "S3", config: { bucket_name: "b", region: "us-east-1", prefix: "p" } } }) { __typename } }`,
    { org: btoa(`Organization:${ORG}`) },
    WRITER,
  );
  expect(created.errors).toBeUndefined();
  expect(pathsOf(upstream, 'POST')).toHaveLength(11);
  await sleep(300);
  expect(EXPORTS.map(victimPolls)).toEqual([1, 1]);
});

it('a write that succeeded, or whose outcome is unknown (5xx), re-polls soon; a burst of writes shares a poll a second', async () => {
  const { upstream, run, watchAll, victimPolls } = await served((_method, path) => (path.includes(EXPORTS[1] as string) ? 500 : 200));
  await watchAll();
  const paused = await run(PAUSE, { id: exportId(EXPORTS[0] as string) }, WRITER);
  expect(paused.errors).toBeUndefined();
  const failed = await run(PAUSE, { id: exportId(EXPORTS[1] as string) }, WRITER);
  expect(failed.errors?.[0]?.extensions.code).toBe('UPSTREAM_ERROR');
  await expect.poll(() => EXPORTS.map(victimPolls), { timeout: 3000 }).toEqual([2, 2]);

  const started = performance.now();
  for (let i = 0; i < 10; i++) await run(PAUSE, { id: exportId(EXPORTS[i % 2] as string) }, WRITER);
  const burstMs = performance.now() - started;
  expect(pathsOf(upstream, 'POST')).toHaveLength(12);
  await sleep(WRITE_POLL_GAP_MS + 500);
  for (const id of EXPORTS) {
    // At most one poll per gap through the burst, and one after its last write, which it shows.
    const polls = victimPolls(id) - 2;
    expect(polls).toBeGreaterThanOrEqual(1);
    expect(polls).toBeLessThanOrEqual(Math.ceil(burstMs / WRITE_POLL_GAP_MS) + 1);
    const last = (method: string) => upstream.requests.findLastIndex((r) => r.method === method && r.path.includes(id));
    expect(last('GET')).toBeGreaterThan(last('POST'));
  }
});
