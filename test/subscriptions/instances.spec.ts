// Two instances on one Redis (CACHE=redis): a write through one that may have changed a record
// pushes to the other's subscribers of it without waiting for their next poll (a minute here), over
// Redis pub/sub; a refused write tells no one, and what is published names the write, never a key.
// Against the reference API with scripted answers and a redis-server of the spec's own.
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { sources, testGateway, untilStoreReachable } from '../cache/support.ts';
import { serveOverHttp } from '../support/http-server.ts';
import { metricValue } from '../support/metrics.ts';
import { type RedisServer, startRedisServer } from '../support/redis-server.ts';
import { sendJson } from '../support/scripted-answers.ts';
import { subscribe } from '../support/sse.ts';

const ORG = '0b4c6f3e-2f1a-4c1e-9a51-6d2b8e0c1a11';
const EXPORT = '5d1e7f3a-9b2c-4d8e-8f60-1a2b3c4d5e6f';
const EXPORT_PATH = `/api/organizations/${ORG}/batch_exports/${EXPORT}/`;
const ID = btoa(`BatchExport:${ORG}:${EXPORT}`);
/** Watched by the test whose Redis comes late. */
const LATE_EXPORT = '6e2f8a4b-0c3d-4e9f-9a71-2b3c4d5e6f70';
const WATCH = 'subscription ($id: ID!) { batchExport(id: $id) { paused } }';
const PAUSE = 'mutation ($id: ID!) { pauseBatchExport(input: { id: $id }) { __typename } }';
const WATCHER = 'phx_watcher_key';
const WRITER = 'phx_writer_key';
const READ_ONLY = 'phx_read_only_key';

let upstream: ReferenceApi;
let redis: RedisServer;
let listener: Redis;
/** What the gateways published on the write feed's channel. */
const published: string[] = [];
const gateways: Gateway[] = [];
const servers: { url: string; close(): Promise<void> }[] = [];

beforeAll(async () => {
  [upstream, redis] = await Promise.all([startReferenceApi(), startRedisServer()]);
  const paused = new Set<string>();
  upstream.answerWith((req, res) => {
    const key = String(req.headers.authorization).slice('Bearer '.length);
    if (req.method !== 'GET' && key === READ_ONLY) return sendJson(res, 403, { detail: 'You do not have permission.' });
    const id = [EXPORT, LATE_EXPORT].find((exportId) => req.path.includes(exportId)) as string;
    if (req.method === 'POST' && req.path.endsWith('/pause/')) paused.add(id);
    sendJson(res, 200, { id, name: 'watched', paused: paused.has(id), destination: { type: 'S3', config: {} }, latest_runs: [] });
  });
  listener = redis.client();
  listener.on('message', (_channel: string, message: string) => published.push(message));
  await listener.subscribe('gw:writes');
  for (let i = 0; i < 2; i++) {
    const gateway = createGateway({
      upstreamUrl: upstream.url,
      cache: { store: redis.url, ttlMs: 60_000 },
      subscriptions: { pollMs: 60_000 },
    });
    gateways.push(gateway);
    servers.push(await serveOverHttp(gateway));
  }
  // Both instances listen before any test writes (each counts as a subscriber, as does this spec's listener).
  await redis.untilSubscribed('gw:writes', 3);
});

afterAll(async () => {
  for (const server of servers) await server.close();
  for (const gateway of gateways) await gateway.close();
  await redis?.close();
  await upstream?.close();
});

async function mutate(through: number | string, key: string, id = ID) {
  const response = await fetch(typeof through === 'string' ? through : (servers[through]?.url as string), {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query: PAUSE, variables: { id } }),
  });
  return (await response.json()) as { data?: any; errors?: { extensions: { code: string } }[] };
}

/** The watcher's poll GETs of the export so far. */
const watcherPolls = () =>
  upstream.requests.filter((r) => r.method === 'GET' && r.path === EXPORT_PATH && r.headers.authorization === `Bearer ${WATCHER}`);

it('a refused write through instance 1 publishes nothing and re-polls nothing on instance 2', async () => {
  const subscription = await subscribe(servers[1]?.url as string, WATCH, { id: ID }, WATCHER);
  try {
    expect(await subscription.waitForEvents(1)).toEqual([{ data: { batchExport: { paused: false } } }]);
    const polls = watcherPolls().length;
    const refused = await mutate(0, READ_ONLY);
    expect(refused.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
    await new Promise((resolve) => setTimeout(resolve, 1500)); // longer than a write's re-poll would take
    expect(published).toEqual([]);
    expect(watcherPolls()).toHaveLength(polls);
  } finally {
    await subscription.close();
  }
});

it('a pause through instance 1 pushes to instance 2’s subscriber at once; the feed names the write, not the key', async () => {
  const subscription = await subscribe(servers[1]?.url as string, WATCH, { id: ID }, WATCHER);
  try {
    expect(await subscription.waitForEvents(1)).toEqual([{ data: { batchExport: { paused: false } } }]);
    const startedAt = performance.now();
    const paused = await mutate(0, WRITER);
    expect(paused.data).toEqual({ pauseBatchExport: { __typename: 'PauseBatchExportPayload' } });
    // The interval is a minute: only the write's re-poll can bring this within seconds.
    expect(await subscription.waitForEvents(2, 5000)).toEqual([
      { data: { batchExport: { paused: false } } },
      { data: { batchExport: { paused: true } } },
    ]);
    expect(performance.now() - startedAt).toBeLessThan(5000);
    expect(published).toHaveLength(1);
    expect(JSON.parse(published[0] as string).slice(1)).toEqual(['POST', `${EXPORT_PATH}pause/`]);
    for (const key of [WRITER, WATCHER]) expect(published[0]).not.toContain(key);
    // /metrics: the write through instance 1, heard on instance 2 (the refused one counts nowhere).
    const writes = (gateway: Gateway) =>
      Promise.all(
        ['this_instance', 'other_instance'].map((origin) => metricValue(gateway, `gateway_subscription_writes_total{origin="${origin}"}`)),
      );
    expect(await writes(gateways[0] as Gateway)).toEqual([1, 0]);
    expect(await writes(gateways[1] as Gateway)).toEqual([0, 1]);
  } finally {
    await subscription.close();
  }
});

it('an instance started while Redis was away listens once it is back', async () => {
  const options = { upstreamUrl: upstream.url, cache: { store: redis.url, ttlMs: 60_000 }, subscriptions: { pollMs: 60_000 } };
  await redis.stop();
  const writer = testGateway(options);
  const watcher = testGateway(options);
  const [writerServer, watcherServer] = [await serveOverHttp(writer.gateway), await serveOverHttp(watcher.gateway)];
  try {
    await new Promise((resolve) => setTimeout(resolve, 300)); // their first connections fail
    await redis.start();
    await Promise.all([untilStoreReachable(writer), untilStoreReachable(watcher)]);
    // Every connection reconnects (at most 2 s apart) and subscribes again: the first two
    // instances', this spec's listener and the two new instances'.
    await redis.untilSubscribed('gw:writes', 5, 8000);
    const id = btoa(`BatchExport:${ORG}:${LATE_EXPORT}`);
    const subscription = await subscribe(watcherServer.url, WATCH, { id }, WATCHER);
    try {
      expect(await subscription.waitForEvents(1)).toEqual([{ data: { batchExport: { paused: false } } }]);
      expect((await mutate(writerServer.url, WRITER, id)).errors).toBeUndefined();
      expect(await subscription.waitForEvents(2, 5000)).toEqual([
        { data: { batchExport: { paused: false } } },
        { data: { batchExport: { paused: true } } },
      ]);
    } finally {
      await subscription.close();
    }
  } finally {
    await writerServer.close();
    await watcherServer.close();
    await writer.gateway.close();
    await watcher.gateway.close();
  }
});

it('a Redis user without the channel’s permission still caches: the feed’s failures are logged, not the store’s', async () => {
  const own = await startRedisServer();
  // Redis 7 gives a new ACL user no channel (acl-pubsub-default resetchannels).
  await own.client().call('ACL', 'SETUSER', 'gateway', 'on', '>a-password-of-this-test', '~*', '+@all');
  const options = {
    upstreamUrl: upstream.url,
    cache: { store: own.url.replace('redis://', 'redis://gateway:a-password-of-this-test@'), ttlMs: 60_000, timeoutMs: 2000 },
    subscriptions: { pollMs: 60_000 },
  };
  const instance = testGateway(options);
  try {
    await untilStoreReachable(instance);
    const id = btoa(`BatchExport:${ORG}:${LATE_EXPORT}`);
    for (let i = 0; i < 3; i++) expect((await instance.post(PAUSE, WRITER, { variables: { id } })).body.errors).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 100)); // the publishes' refusals
    expect((await instance.readiness()).body.cache).toEqual({ store: 'redis', reachable: true });
    const query = `query ($id: ID!) { node(id: $id) { ... on BatchExport { paused } } }`;
    await instance.post(query, WATCHER, { variables: { id } });
    expect(sources((await instance.post(query, WATCHER, { variables: { id } })).body)).toEqual(['cache']);
    const warnings = instance.log.lines.filter((line) => line.level === 'warn').map((line) => line.msg);
    expect(warnings.filter((msg) => String(msg).startsWith('the write feed could not publish'))).toHaveLength(1);
    expect(warnings).toContain(
      'the write feed could not subscribe: subscriptions on other instances see writes at their next poll (a Redis ACL user needs &gw:writes)',
    );
    expect(warnings.filter((msg) => String(msg).includes('unreachable'))).toEqual([]);
    // Every failure is counted, though logged once a minute at most.
    expect(await metricValue(instance.gateway, 'gateway_write_feed_failures_total{operation="publish"}')).toBe(3);
    expect(await metricValue(instance.gateway, 'gateway_write_feed_failures_total{operation="subscribe"}')).toBeGreaterThanOrEqual(1);
  } finally {
    await instance.gateway.close();
    await own.close();
  }
});
