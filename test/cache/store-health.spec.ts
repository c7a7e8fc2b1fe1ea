// How the shared store's health is judged, against real redis-servers: CACHE_TIMEOUT_MS times the
// store's answer, not a stall of the gateway's own event loop; on a Redis Cluster the store is used
// again only once every primary serves, not when one node answers; and a write that could not
// invalidate while the store was set aside says so, in the log and the metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { createRedisStore } from '../../src/store/redis-store.ts';
import type { SharedStore } from '../../src/store/shared-store.ts';
import { captureLogger } from '../ops/support.ts';
import { type RedisCluster, startRedisCluster } from '../support/redis-cluster.ts';
import { type RedisServer, startRedisServer } from '../support/redis-server.ts';
import { testGateway, untilStoreReachable } from './support.ts';

const EXPORTS = `query Exports($org: UUID!) { organization(databaseId: $org) { batchExports(first: 1) { nodes { id paused } } } }`;
const PAUSE = `mutation Pause($id: ID!) { pauseBatchExport(input: { id: $id }) { __typename } }`;
const STALE_WARNING = 'a write could not invalidate the cached answers it changed';

/** A store of the test's own, with what it reported: every change of availability, every failure, its log. */
function observedStore(url: string, timeoutMs: number) {
  const log = captureLogger('info');
  const changes: boolean[] = [];
  let failures = 0;
  const store = createRedisStore({
    url,
    timeoutMs,
    secret: 'a-secret-of-this-test-only',
    logger: log.logger,
    onChange: (up) => changes.push(up),
    onFailure: () => (failures += 1),
  });
  return { store, log, changes, failures: () => failures };
}

/** Blocks this process's event loop, as a long synchronous task under load does. */
function stall(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy: no timer, no socket is served meanwhile
  }
}

describe('CACHE_TIMEOUT_MS', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.close();
  });

  it('times the store’s answer: a stall of this process longer than it, while an operation is in flight, sets no healthy Redis aside', async () => {
    const { store, changes, failures } = observedStore(redis.url, 100);
    try {
      await until(() => store.available);
      for (let i = 0; i < 3; i += 1) {
        // Sent at once (the connection is ready); Redis answers within a millisecond, and the
        // answer waits in the socket while the event loop is blocked past the 100 ms deadline.
        const read = store.readEntries('a-tag', ['an-entry']);
        stall(300);
        expect(await read).toEqual([null]);
      }
      expect(store.available).toBe(true);
      expect(failures()).toBe(0);
      expect(changes).toEqual([true]);
    } finally {
      await store.close();
    }
  });

  it('still sets aside a Redis that does not answer (SIGSTOP) once it passed, and uses it again once it answers', async () => {
    const { store, log, changes } = observedStore(redis.url, 100);
    try {
      await until(() => store.available);
      redis.freeze();
      const started = performance.now();
      await expect(store.readEntries('a-tag', ['an-entry'])).rejects.toThrow('no answer within CACHE_TIMEOUT_MS (100 ms)');
      expect(performance.now() - started).toBeGreaterThanOrEqual(99);
      expect(store.available).toBe(false);
      // Set aside: the next operation fails at once, without waiting.
      await expect(store.readEntries('a-tag', ['an-entry'])).rejects.toThrow('the shared store is not available');
      expect(log.lines.filter((line) => line.msg.startsWith('cache store unreachable'))).toMatchObject([
        { level: 'warn', reason: 'no answer within CACHE_TIMEOUT_MS (100 ms)' },
      ]);
    } finally {
      redis.thaw();
    }
    try {
      await until(() => store.available);
      expect(changes).toEqual([true, false, true]);
      expect(await store.readEntries('a-tag', ['an-entry'])).toEqual([null]);
    } finally {
      await store.close();
    }
  });
});

describe('on a Redis Cluster, the store is used again only once every primary serves', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
  });
  afterAll(async () => {
    await cluster?.close();
  });

  /**
   * Sets the store aside through the primary of the global generation (which every lookup reads),
   * then watches three probes (one a second) while that primary is out: one node's PING would
   * have put the store back at the first whose node is another.
   */
  async function outage(store: SharedStore, changes: boolean[], primaryOut: () => Promise<void> | void): Promise<void> {
    await primaryOut();
    await expect(store.readGenerations(['all'])).rejects.toThrow();
    expect(store.available).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect(store.available).toBe(false);
    expect(changes).toEqual([true, false]);
  }

  it('a paused primary (SIGSTOP): no recovery until it answers again', async () => {
    // A generous timeout: the probes must fail on the paused primary, not on a loaded test machine.
    const { store, log, changes } = observedStore(cluster.url, 500);
    const paused = await cluster.masterOf('gw:{gen}:all');
    try {
      await until(() => store.available);
      await outage(store, changes, () => cluster.freeze(paused));
      expect(log.lines.filter((line) => line.msg === 'cache store reachable again')).toEqual([]);
    } finally {
      cluster.thaw(paused);
    }
    try {
      await until(() => store.available);
      expect(changes).toEqual([true, false, true]);
      expect(log.lines.filter((line) => line.msg === 'cache store reachable again')).toHaveLength(1);
      expect(await store.readGenerations(['all'])).toEqual([null]);
    } finally {
      await store.close();
    }
  });

  it('a killed primary: no recovery until it is started again and serves its slots', async () => {
    const { store, log, changes } = observedStore(cluster.url, 500);
    const killed = await cluster.masterOf('gw:{gen}:all');
    try {
      await until(() => store.available);
      await outage(store, changes, () => cluster.stop(killed));
      expect(log.lines.filter((line) => line.msg === 'cache store reachable again')).toEqual([]);
      await cluster.start(killed);
      await until(() => store.available, 10_000);
      expect(changes).toEqual([true, false, true]);
      // Back for good: its slots are served, the next operations do not set it aside again.
      for (let i = 0; i < 5; i += 1) expect(await store.readGenerations(['all'])).toEqual([null]);
      expect(store.available).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe('a write while the store is set aside', () => {
  let api: ReferenceApi;
  let redis: RedisServer;
  beforeAll(async () => {
    [api, redis] = await Promise.all([startReferenceApi(), startRedisServer()]);
  });
  afterAll(async () => {
    await redis?.close();
    await api?.close();
  });

  it('says it could not invalidate: one warning per outage, naming no key, and a counter per write', async () => {
    const target = testGateway({ upstreamUrl: api.url, cache: { store: redis.url, ttlMs: 60_000 } });
    const key = api.keys.demo;
    const failed = async () => {
      const { body } = await target.gateway.metrics.render();
      return body
        .split('\n')
        .filter((line) => line.startsWith('gateway_cache_invalidations_failed_total{'))
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    };
    try {
      await untilStoreReachable(target);
      const org = api.store.organizationsOf(1).find((each) => each.name === 'Hedgehog Analytics')?.id as string;
      const exports = await target.post(EXPORTS, key, { variables: { org } });
      const id = exports.body.data.organization.batchExports.nodes[0].id as string;
      // While the store is in use, a write invalidates: nothing failed.
      expect((await target.post(PAUSE, key, { variables: { id } })).body.data).toEqual({
        pauseBatchExport: { __typename: 'PauseBatchExportPayload' },
      });
      expect(await failed()).toBe(0);

      await redis.stop();
      await untilStoreReachable(target, false);
      for (let i = 0; i < 2; i += 1) {
        const written = await target.post(PAUSE, key, { variables: { id } });
        expect(written.body.data).toEqual({ pauseBatchExport: { __typename: 'PauseBatchExportPayload' } });
      }
      expect(await failed()).toBe(2);
      const { body } = await target.gateway.metrics.render();
      expect(body).toMatch(/^gateway_cache_invalidations_failed_total\{route="[^"]*batch_exports[^"]*"\} 2$/m);
      expect(target.log.lines.filter((line) => line.msg.startsWith(STALE_WARNING))).toMatchObject([{ level: 'warn', store: 'redis' }]);
      expect(target.log.text()).not.toContain(key);

      await redis.start();
      await untilStoreReachable(target);
      await target.post(PAUSE, key, { variables: { id } });
      expect(await failed()).toBe(2);
    } finally {
      await target.gateway.close();
    }
  });
});

async function until(condition: () => boolean, withinMs = 5000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
