// The store on Redis or a Redis Cluster (ioredis: redis-connection.ts), shared by every instance.
// Nothing waits on it: an operation gives up when the store did not answer within `timeoutMs`
// (answer-deadline.ts), none is queued while the connection is down, and none is retried; a failure
// marks the store unavailable until a probe finds it whole again (availability.ts; on a cluster,
// every primary: primaries.ts).
//
// Keys, laid out for Redis Cluster as well: no command and no pipeline spans two hash tags.
//   gw:{<caller tag>}:get:<path?query>              a cached answer
//   gw:{<caller tag>}:budget:<windowMs>:<index>     a budget counter
//   gw:{<caller tag>}:idem:<key id>                 an idempotency record (src/idempotency)
//   gw:{<caller tag>}:idem-index                    the tag's records: a sorted set of key ids by expiry
//   gw:{gen}:<scope>                                a generation
//   gw:{secret}                                     the secret caller tags are made with (unless CACHE_SECRET)
//   gw:{apq}:texts, gw:{apq}:used, gw:{apq}:chars   persisted query texts by hash, their last use, their total length
// and one pub/sub channel, gw:writes (write-feed.ts).

import { randomBytes } from 'node:crypto';
import type { Cluster } from 'ioredis';
import { withinDeadline } from './answer-deadline.ts';
import { type AvailabilityOptions, StoreAvailability } from './availability.ts';
import { newGeneration } from './memory-store.ts';
import { checkEveryPrimary } from './primaries.ts';
import { connectRedis, type RedisClient } from './redis-connection.ts';
import {
  type BudgetWindowAt,
  CallerRecordsFullError,
  GLOBAL_SCOPE,
  type SharedQueries,
  type SharedStore,
  type WindowCounts,
  type WriteFeed,
} from './shared-store.ts';
import { createRedisWriteFeed, type WriteFeedOperation } from './write-feed.ts';

interface RedisStoreOptions extends Pick<AvailabilityOptions, 'logger' | 'onFailure' | 'onChange'> {
  /** Every failed publish or subscribe of the write feed (metrics): they do not set the store aside. */
  onFeedFailure?(operation: WriteFeedOperation): void;
  /** `redis://[[user]:password@]host:port/db` (or `rediss://`). */
  url: string;
  /** How long one operation may take before it is given up (CACHE_TIMEOUT_MS). */
  timeoutMs: number;
  /** The secret caller tags are made with; unset: the one stored in Redis, set there by the first instance. */
  secret?: string;
}

/**
 * How long a generation is kept after its last bump. It must outlive every entry that read the
 * generation before it (CACHE_TTL_MS, at most an hour, after a lookup at most UPSTREAM_TIMEOUT_MS
 * earlier): a generation read back as null after that cannot make an old entry valid again.
 */
const GENERATION_TTL_MS = 24 * 60 * 60 * 1000;
/** Bumps kept while the store is away; past it, one bump of every entry's global scope replaces them. */
const MAX_PENDING_BUMPS = 1000;
/** Releases of idempotency claims kept while the store is away; past it the oldest is dropped (its key stays running). */
const MAX_PENDING_RELEASES = 1000;

const SECRET_KEY = 'gw:{secret}';
const entryKey = (tag: string, id: string) => `gw:{${tag}}:get:${id}`;
const generationKey = (scope: string) => `gw:{gen}:${scope}`;
const idempotencyKey = (tag: string, id: string) => `gw:{${tag}}:idem:${id}`;
const idempotencyIndexKey = (tag: string) => `gw:{${tag}}:idem-index`;
/** The persisted query texts: one hash tag, so each script's keys stay in one slot. */
const QUERY_KEYS = ['gw:{apq}:texts', 'gw:{apq}:used', 'gw:{apq}:chars'];
const budgetKey = (tag: string, window: BudgetWindowAt, index = window.index) => `gw:{${tag}}:budget:${window.windowMs}:${index}`;
/** A counter is kept while it can still count: through the next window, as that one's previous. */
const budgetTtlMs = (window: BudgetWindowAt) => 2 * window.windowMs;

// KEYS: each window's current and previous counter. ARGV: the amount, then per window its limit,
// the previous window's weight and the current counter's time to live. Same rule as memory-store.ts.
const TAKE_BUDGET = `
local amount = tonumber(ARGV[1])
local counts = {}
local taken = 1
for i = 1, #KEYS / 2 do
  local current = tonumber(redis.call('GET', KEYS[2 * i - 1]) or '0')
  local previous = tonumber(redis.call('GET', KEYS[2 * i]) or '0')
  counts[2 * i - 1] = current
  counts[2 * i] = previous
  if current + previous * tonumber(ARGV[3 * i]) + amount > tonumber(ARGV[3 * i - 1]) then taken = 0 end
end
if taken == 1 then
  for i = 1, #KEYS / 2 do
    redis.call('INCRBY', KEYS[2 * i - 1], amount)
    redis.call('PEXPIRE', KEYS[2 * i - 1], ARGV[3 * i + 1])
  end
end
table.insert(counts, 1, taken)
return counts`;

// KEYS: counters. ARGV: the delta, then each counter's time to live. A negative delta never takes a
// counter below 0, nor revives one that expired.
const ADJUST_BUDGET = `
local delta = tonumber(ARGV[1])
for i = 1, #KEYS do
  if delta >= 0 then
    redis.call('INCRBY', KEYS[i], delta)
    redis.call('PEXPIRE', KEYS[i], ARGV[i + 1])
  else
    local value = tonumber(redis.call('GET', KEYS[i]) or '0')
    if value > 0 then redis.call('DECRBY', KEYS[i], math.min(value, -delta)) end
  end
end
return 0`;

// The idempotency scripts: KEYS are a record and its caller tag's index, which counts the tag's
// records (Redis drops a record at its expiry; the index drops its id when the time in its score
// passed). ARGV: the record, its time to live, its key id, then what the script needs.
const NOW = `
local time = redis.call('TIME')
local now = time[1] * 1000 + math.floor(time[2] / 1000)`;
const INDEX_RECORD = `
redis.call('ZADD', KEYS[2], now + ARGV[2], ARGV[3])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end`;

// ARGV[4]: the most records the tag may have. Returns the record there, nil when claimed, 0 when the tag is full.
const CLAIM_IDEMPOTENCY_KEY = `
local existing = redis.call('GET', KEYS[1])
if existing then return existing end
${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
${INDEX_RECORD}
return false`;

const SETTLE_IDEMPOTENCY_KEY = `
${NOW}
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
${INDEX_RECORD}
return 0`;

// ARGV: the claim's record, its key id. Deletes the record only while it is that claim's.
const RELEASE_IDEMPOTENCY_KEY = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return 1`;

// KEYS: the texts (a hash), their last use (a sorted set), their total length. ARGV: the query's hash.
const READ_QUERY = `
local text = redis.call('HGET', KEYS[1], ARGV[1])
if not text then return false end
${NOW}
redis.call('ZADD', KEYS[2], now, ARGV[1])
return text`;

// ARGV: the query's hash, its text, the most texts and the most total length kept. The least
// recently used go first; a text longer than the whole bound is not kept.
const WRITE_QUERY = `
local length = string.len(ARGV[2])
if length > tonumber(ARGV[4]) then return 0 end
${NOW}
local chars = redis.call('INCRBY', KEYS[3], length - redis.call('HSTRLEN', KEYS[1], ARGV[1]))
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], now, ARGV[1])
while chars > tonumber(ARGV[4]) or redis.call('ZCARD', KEYS[2]) > tonumber(ARGV[3]) do
  local oldest = redis.call('ZPOPMIN', KEYS[2])
  if #oldest == 0 then break end
  chars = redis.call('INCRBY', KEYS[3], -redis.call('HSTRLEN', KEYS[1], oldest[1]))
  redis.call('HDEL', KEYS[1], oldest[1])
end
return 1`;

type ScriptedRedis = RedisClient & {
  takeBudget(keyCount: number, ...args: (string | number)[]): Promise<number[]>;
  adjustBudget(keyCount: number, ...args: (string | number)[]): Promise<number>;
  claimIdempotencyKey(...args: (string | number)[]): Promise<string | number | null>;
  settleIdempotencyKey(...args: (string | number)[]): Promise<number>;
  releaseIdempotencyKey(...args: (string | number)[]): Promise<number>;
  readQuery(...args: string[]): Promise<string | null>;
  writeQuery(...args: (string | number)[]): Promise<number>;
};

/** The shared store, and what only Redis can share: persisted query texts and the write feed. */
interface RedisStore extends SharedStore {
  queries: SharedQueries;
  writes: WriteFeed;
}

export function createRedisStore(options: RedisStoreOptions): RedisStore {
  const redis = connectRedis(options.url, {
    connectionName: 'org-graphql-gateway',
    scripts: {
      takeBudget: { lua: TAKE_BUDGET },
      adjustBudget: { lua: ADJUST_BUDGET },
      claimIdempotencyKey: { lua: CLAIM_IDEMPOTENCY_KEY, numberOfKeys: 2 },
      settleIdempotencyKey: { lua: SETTLE_IDEMPOTENCY_KEY, numberOfKeys: 2 },
      releaseIdempotencyKey: { lua: RELEASE_IDEMPOTENCY_KEY, numberOfKeys: 2 },
      readQuery: { lua: READ_QUERY, numberOfKeys: QUERY_KEYS.length },
      writeQuery: { lua: WRITE_QUERY, numberOfKeys: QUERY_KEYS.length },
    },
  }) as ScriptedRedis;
  let secret = options.secret;
  /** What this instance proposes while no secret is stored; then the stored one, so a Redis restart keeps it. */
  let proposal = options.secret ?? randomBytes(32).toString('base64url');
  const pendingBumps = new Set<string>();
  /** Claims to release once the store is back: each claim's record is its own (a random id), so only it goes. */
  const pendingReleases = new Set<{ tag: string; id: string; record: string }>();
  /** Bounds one answer of the store, as each operation and each step of a recovery waits for it. */
  const timed = <T>(answer: Promise<T>) => withinDeadline(answer, options.timeoutMs);
  /** A write could not make other instances' answers stale in this outage: said once per outage. */
  let staleWarned = false;

  const availability = new StoreAvailability({
    ...options,
    name: 'redis',
    async recover() {
      // A cluster is whole once every primary serves; one node's PING says nothing of the others.
      if (redis.isCluster) await checkEveryPrimary(redis as Cluster, timed);
      else await timed(redis.ping());
      if (!options.secret) {
        // Every instance proposes; the first one's stays. A store that lost its data (a restart
        // without persistence) gets this instance's secret again, which the others then adopt.
        const results = await timed(redis.pipeline().set(SECRET_KEY, proposal, 'NX').get(SECRET_KEY).exec());
        throwFirstError(results);
        const stored = results?.[1]?.[1];
        if (typeof stored !== 'string') throw new Error('the shared secret could not be stored');
        secret = proposal = stored;
      }
      // Until none is left: a bump deferred while these are sent (the store is not up yet) is made too.
      while (pendingBumps.size > 0) {
        const scopes = [...pendingBumps];
        pendingBumps.clear();
        await timed(bump(scopes)).catch((error: unknown) => {
          deferBumps(scopes);
          throw error;
        });
      }
      await Promise.all(
        [...pendingReleases].map(async (claim) => {
          await timed(release(claim.tag, claim.id, claim.record));
          pendingReleases.delete(claim);
        }),
      );
      staleWarned = false;
    },
  });
  redis.on('ready', () => availability.probe());
  // ioredis reports connection failures as 'error' events (a process without a listener would crash).
  redis.on('error', (error: unknown) => availability.lost(error));
  redis.on('close', () => availability.lost(new Error('connection closed')));

  const run = <T>(operation: () => Promise<T>) => availability.run(() => timed(operation()));
  // SUBSCRIBE waits for no one: only the store's own commands give up after CACHE_TIMEOUT_MS.
  const writes = createRedisWriteFeed({
    redis,
    storeUp: () => availability.up,
    connect: () => connectRedis(options.url, { connectionName: 'org-graphql-gateway-writes' }),
    logger: options.logger,
    onFailure: options.onFeedFailure,
  });
  const release = (tag: string, id: string, record: string) =>
    redis.releaseIdempotencyKey(idempotencyKey(tag, id), idempotencyIndexKey(tag), record, id);
  const deferRelease = (tag: string, id: string, record: string) => {
    pendingReleases.add({ tag, id, record });
    const [oldest] = pendingReleases;
    if (oldest && pendingReleases.size > MAX_PENDING_RELEASES) pendingReleases.delete(oldest);
  };
  const deferBumps = (scopes: readonly string[]) => {
    for (const scope of scopes) pendingBumps.add(scope);
    if (pendingBumps.size > MAX_PENDING_BUMPS) {
      pendingBumps.clear();
      pendingBumps.add(GLOBAL_SCOPE);
    }
  };
  const warnStale = () => {
    if (staleWarned) return;
    staleWarned = true;
    options.logger.warn(
      { store: 'redis' },
      'a write could not invalidate the cached answers it changed: other instances may serve them until this instance reaches the store again (it invalidates them first), at most CACHE_TTL_MS',
    );
  };
  const bump = async (scopes: readonly string[]) => {
    const pipeline = redis.pipeline();
    for (const scope of scopes) pipeline.set(generationKey(scope), newGeneration(), 'PX', GENERATION_TTL_MS);
    throwFirstError(await pipeline.exec());
  };

  return {
    kind: 'redis',
    get available() {
      return availability.up;
    },
    get secret() {
      return availability.up ? secret : undefined;
    },
    readEntries(tag, ids) {
      return run(() => redis.mget(ids.map((id) => entryKey(tag, id))));
    },
    writeEntries(tag, entries) {
      return run(async () => {
        const pipeline = redis.pipeline();
        for (const { id, value, ttlMs } of entries) pipeline.set(entryKey(tag, id), value, 'PX', ttlMs);
        throwFirstError(await pipeline.exec());
      });
    },
    readGenerations(scopes) {
      return run(() => redis.mget(scopes.map(generationKey)));
    },
    async bumpGenerations(scopes) {
      try {
        await run(() => bump(scopes));
      } catch (error) {
        deferBumps(scopes);
        warnStale();
        throw error;
      }
    },
    takeBudget(tag, windows, amount) {
      const keys = windows.flatMap((window) => [budgetKey(tag, window), budgetKey(tag, window, window.index - 1)]);
      const args = windows.flatMap((window) => [window.limit, window.previousWeight, budgetTtlMs(window)]);
      return run(async () => {
        const [taken, ...counts] = await redis.takeBudget(keys.length, ...keys, amount, ...args);
        return {
          taken: taken === 1,
          counts: windows.map((_, i) => ({ current: Number(counts[2 * i]), previous: Number(counts[2 * i + 1]) })),
        };
      });
    },
    adjustBudget(tag, windows, delta) {
      const keys = windows.map((window) => budgetKey(tag, window));
      return run(async () => {
        await redis.adjustBudget(keys.length, ...keys, delta, ...windows.map(budgetTtlMs));
      });
    },
    readBudget(tag, windows) {
      const keys = windows.flatMap((window) => [budgetKey(tag, window), budgetKey(tag, window, window.index - 1)]);
      return run(async () => {
        const values = await redis.mget(keys);
        return windows.map((_, i): WindowCounts => ({ current: Number(values[2 * i] ?? 0), previous: Number(values[2 * i + 1] ?? 0) }));
      });
    },
    async claimIdempotencyKey(tag, id, record, ttlMs, maxPerCaller) {
      // One script: set unless present, within the tag's count, and hand back what was present.
      const claimed = await run(() =>
        redis.claimIdempotencyKey(idempotencyKey(tag, id), idempotencyIndexKey(tag), record, ttlMs, id, maxPerCaller),
      ).catch((error: unknown) => {
        // It may still be applied (sent before a timeout): undone once the store is back.
        deferRelease(tag, id, record);
        throw error;
      });
      if (claimed === 0) throw new CallerRecordsFullError();
      return claimed as string | null;
    },
    settleIdempotencyKey(tag, id, record, ttlMs) {
      return run(async () => {
        await redis.settleIdempotencyKey(idempotencyKey(tag, id), idempotencyIndexKey(tag), record, ttlMs, id);
      });
    },
    async releaseIdempotencyKey(tag, id, claimRecord) {
      await run(() => release(tag, id, claimRecord)).catch((error: unknown) => {
        deferRelease(tag, id, claimRecord);
        throw error;
      });
    },
    queries: {
      read: (hash) => run(() => redis.readQuery(...QUERY_KEYS, hash)),
      async write(hash, text, { maxEntries, maxChars }) {
        await run(() => redis.writeQuery(...QUERY_KEYS, hash, text, maxEntries, maxChars));
      },
    },
    writes,
    async close() {
      availability.close();
      writes.close();
      redis.disconnect();
    },
  };
}

/** A pipeline resolves even when some of its commands failed: those count as the store failing. */
function throwFirstError(results: [Error | null, unknown][] | null): void {
  for (const [error] of results ?? []) if (error) throw error;
}
