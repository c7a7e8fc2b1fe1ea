// The stores a gateway keeps things in between requests (CACHE): Redis, shared by every instance, or
// this instance's memory; and this instance's memory in any case, which counts the upstream budget
// while Redis is away. With Redis, persisted query texts are kept there too, and every instance
// hears of the others' writes.
import type { CacheSettings } from '../config/index.ts';
import type { Logger } from '../observability/logger.ts';
import { createMemoryStore } from './memory-store.ts';
import { createRedisStore } from './redis-store.ts';
import type { SharedQueries, SharedStore, WriteFeed } from './shared-store.ts';
import type { WriteFeedOperation } from './write-feed.ts';

interface Stores {
  /** Where answers, generations, budgets and idempotency records live. */
  shared: SharedStore;
  /** This instance's memory (the same store when `shared` is memory). */
  local: SharedStore;
  /** Persisted query texts every instance sees: with Redis only. */
  queries?: SharedQueries;
  /** Writes every instance hears of: with Redis only. */
  writes?: WriteFeed;
  close(): Promise<void>;
}

interface StoreEvents {
  onFailure?(): void;
  onChange?(up: boolean): void;
  onFeedFailure?(operation: WriteFeedOperation): void;
}

/**
 * `settings` undefined: a memory store for the upstream budget and idempotency records alone.
 * `idempotencyMaxEntries`: bounds the idempotency records a memory store keeps.
 */
export function openStores(
  settings: CacheSettings | undefined,
  logger: Logger,
  events: StoreEvents,
  idempotencyMaxEntries: number,
): Stores {
  const local = createMemoryStore({ answers: settings, secret: settings?.secret, idempotencyMaxEntries });
  if (settings === undefined || settings.store === 'memory') return { shared: local, local, close: () => local.close() };
  const shared = createRedisStore({ url: settings.store, timeoutMs: settings.timeoutMs, secret: settings.secret, logger, ...events });
  return {
    shared,
    local,
    queries: shared.queries,
    writes: shared.writes,
    async close() {
      await shared.close();
      await local.close();
    },
  };
}
