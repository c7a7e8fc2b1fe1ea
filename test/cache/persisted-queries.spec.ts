// Automatic persisted queries with CACHE=redis: a query registered through one instance runs by its
// hash through another (no state only one instance knows), the shared texts stay within the APQ
// store's bounds in Redis, and an outage of Redis costs a client at most one resend of the text.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApqStore } from '../../src/persisted/apq-store.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { createRedisStore } from '../../src/store/redis-store.ts';
import { captureLogger } from '../ops/support.ts';
import { CACHE_DEFAULTS } from '../support/defaults.ts';
import { type RedisServer, startRedisServer } from '../support/redis-server.ts';
import { type TestGateway, twoInstances, untilStoreReachable } from './support.ts';

const QUERY = '{ organizations(first: 1) { nodes { name } } }';
type ApqStore = ReturnType<typeof createApqStore>;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let api: ReferenceApi;
let redis: RedisServer;

beforeAll(async () => {
  [api, redis] = await Promise.all([startReferenceApi(), startRedisServer()]);
});

afterAll(async () => {
  await redis?.close();
  await api?.close();
});

/** An APQ request: the hash alone, or with the text (a registration). */
async function persisted(target: TestGateway, hash: string, query?: string) {
  const response = await target.gateway.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${api.keys.demo}` },
    body: JSON.stringify({ query, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }),
  });
  return { status: response.status, body: (await response.json()) as { data?: any; errors?: any[] } };
}

describe('automatic persisted queries on a shared Redis', () => {
  it('a query registered through instance 1 runs by its hash alone through instance 2', async () => {
    const options = { upstreamUrl: api.url, cache: { store: redis.url, ttlMs: 60_000 } };
    const [one, two] = await twoInstances(options);
    try {
      const hash = sha256(QUERY);
      const unknown = await persisted(two, hash);
      expect(unknown.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');

      const registered = await persisted(one, hash, QUERY);
      expect(registered.body.errors).toBeUndefined();
      const byHash = await persisted(two, hash);
      expect(byHash.status).toBe(200);
      expect(byHash.body).toEqual(registered.body);
      // Only the text is kept, under its hash: never a key or an answer.
      expect(await redis.client().hget('gw:{apq}:texts', hash)).toBe(QUERY);

      // A text that is not the hash's is refused, and stored nowhere.
      const forged = await persisted(one, sha256('{ __typename }'), QUERY);
      expect(forged.body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_MISMATCH');
      expect(await redis.client().hget('gw:{apq}:texts', sha256('{ __typename }'))).toBeNull();

      // A registration of an operation the gateway would not run (invalid, or past a query limit)
      // stays in its instance's memory: nothing any caller sends reaches Redis unless it could run.
      const overLimit = `{ ${Array.from({ length: 20 }, (_, i) => `a${i}: organizations { totalCount }`).join(' ')} }`; // MAX_ALIASES 15
      // Refused by the fan-out estimate, the last check before execution: 1 + 100 × 3 calls of MAX_UPSTREAM_CALLS 250.
      const pastFanOut =
        '{ organizations(first: 100) { nodes { batchExports { totalCount } domains { totalCount } members { totalCount } } } }';
      // A valid text past 32 KB (padded with a comment, which is not a token) runs, and stays local.
      const padded = `{ __typename } # ${'x'.repeat(40_000)}`;
      expect((await persisted(one, sha256(padded), padded)).body.data).toEqual({ __typename: 'Query' });
      expect(await redis.client().hget('gw:{apq}:texts', sha256(padded))).toBeNull();
      for (const refused of ['{ nope }', overLimit, pastFanOut]) {
        const answer = await persisted(one, sha256(refused), refused);
        expect(answer.body.errors?.[0]?.extensions?.code, refused.slice(0, 20)).toMatch(/GRAPHQL_VALIDATION_FAILED|QUERY_TOO_COMPLEX/);
        expect(await redis.client().hget('gw:{apq}:texts', sha256(refused))).toBeNull();
      }

      // Nor can a request run another text under a registered hash into Redis: an extension the APQ
      // plugin ignores (version 2) carries the refused registration's hash beside a valid query.
      const poisoned = await one.gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${api.keys.demo}` },
        body: JSON.stringify({ query: QUERY, extensions: { persistedQuery: { version: 2, sha256Hash: sha256('{ nope }') } } }),
      });
      expect(poisoned.status).toBe(200);
      expect(await redis.client().hget('gw:{apq}:texts', sha256('{ nope }'))).toBeNull();
    } finally {
      await one.gateway.close();
      await two.gateway.close();
    }
  });

  it('keeps the most recently used texts within the count and length bounds, for every instance at once', async () => {
    const one = createRedisStore({ url: redis.url, timeoutMs: CACHE_DEFAULTS.timeoutMs, logger: captureLogger('info').logger });
    const two = createRedisStore({ url: redis.url, timeoutMs: CACHE_DEFAULTS.timeoutMs, logger: captureLogger('info').logger });
    try {
      while (!(one.available && two.available)) await new Promise((resolve) => setTimeout(resolve, 10));
      const client = redis.client();
      await client.del('gw:{apq}:texts', 'gw:{apq}:used', 'gw:{apq}:chars');
      const bounds = { maxEntries: 2, maxChars: 10 };
      await one.queries.write('a', 'aaa', bounds);
      await two.queries.write('b', 'bbb', bounds);
      await new Promise((resolve) => setTimeout(resolve, 2)); // a later millisecond: 'a' is now the most recent
      expect(await two.queries.read('a')).toBe('aaa');
      await one.queries.write('c', 'ccc', bounds);
      expect([await one.queries.read('a'), await one.queries.read('b'), await two.queries.read('c')]).toEqual(['aaa', null, 'ccc']);
      await new Promise((resolve) => setTimeout(resolve, 2));
      await two.queries.write('d', 'dddddddd', bounds); // 3 + 3 + 8 > 10: the oldest go first
      expect([await one.queries.read('a'), await one.queries.read('c'), await one.queries.read('d')]).toEqual([null, null, 'dddddddd']);
      await two.queries.write('e', 'e'.repeat(11), bounds); // longer than the whole bound: not kept
      expect([await one.queries.read('d'), await one.queries.read('e')]).toEqual(['dddddddd', null]);
      expect(await client.hlen('gw:{apq}:texts')).toBe(1);
      expect(await client.get('gw:{apq}:chars')).toBe('8');
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('keeps the texts instances serve from their own memory: they count as used in Redis too, once a minute', async () => {
    const stores = [0, 1, 2].map(() =>
      createRedisStore({ url: redis.url, timeoutMs: CACHE_DEFAULTS.timeoutMs, logger: captureLogger('info').logger }),
    );
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      while (!stores.every((store) => store.available)) await new Promise((resolve) => setTimeout(resolve, 10));
      await redis.client().del('gw:{apq}:texts', 'gw:{apq}:used', 'gw:{apq}:chars');
      const bounds = { maxEntries: 3 };
      const [a, b, c] = stores.map((store) => createApqStore(bounds, store.queries)) as [ApqStore, ApqStore, ApqStore];
      const later = () => new Promise((resolve) => setTimeout(resolve, 5)); // a later millisecond in Redis
      /** A registration whose operation then ran, as the APQ plugin and the share hook make it. */
      const register = async (store: ApqStore, text: string) => {
        await store.set(sha256(text), text);
        await store.share(sha256(text), text);
      };
      await register(a, '{ hot }');
      await later();
      await register(b, '{ x1 }');
      await later();
      await register(b, '{ x2 }');
      await later();
      expect(await a.get(sha256('{ hot }'))).toBe('{ hot }'); // from its memory, within the minute: Redis not told
      vi.advanceTimersByTime(60_000);
      expect(await a.get(sha256('{ hot }'))).toBe('{ hot }'); // a minute on: Redis is told
      await later();
      await register(b, '{ x3 }'); // past the bound: the least recently used goes, x1
      const kept = await redis.client().hvals('gw:{apq}:texts');
      expect(kept.sort()).toEqual(['{ hot }', '{ x2 }', '{ x3 }']);
      expect(await c.get(sha256('{ hot }'))).toBe('{ hot }'); // a new instance finds the text in use

      // A text in Redis under a hash that is not its own is served by no instance.
      await redis.client().hset('gw:{apq}:texts', sha256('{ x3 }'), '{ forged }');
      expect(await c.get(sha256('{ x3 }'))).toBeNull();
    } finally {
      vi.useRealTimers();
      for (const store of stores) await store.close();
    }
  });

  it('while Redis is down, a registered query still runs by its hash on its instance, and elsewhere costs one resend', async () => {
    const own = await startRedisServer();
    const options = { upstreamUrl: api.url, cache: { store: own.url, ttlMs: 60_000, timeoutMs: 100 } };
    const [one, two] = await twoInstances(options);
    try {
      await own.stop();
      await Promise.all([untilStoreReachable(one, false), untilStoreReachable(two, false)]);
      const query = '{ organizations(first: 2) { nodes { name } } }';
      const hash = sha256(query);
      const registered = await persisted(one, hash, query);
      expect(registered.body.errors).toBeUndefined();
      expect((await persisted(one, hash)).body).toEqual(registered.body);
      expect((await persisted(two, hash)).body.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_FOUND');
      expect((await persisted(two, hash, query)).body).toEqual(registered.body);
    } finally {
      await one.gateway.close();
      await two.gateway.close();
      await own.close();
    }
  });
});
