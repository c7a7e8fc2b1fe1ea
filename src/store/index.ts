// The stores a gateway keeps things in between requests (CACHE): Redis, shared by every instance, or
// this instance's memory; and this instance's memory in any case, which counts the upstream budget
// while Redis is away.
import type { Logger } from '../observability/logger.ts';
import { createMemoryStore } from './memory-store.ts';
import { createRedisStore } from './redis-store.ts';
import type { SharedStore } from './shared-store.ts';

export interface CacheSettings {
  /** `memory` (this instance), or a Redis URL (`redis://host:port/db`) shared by every instance on it. */
  store: string;
  /** How long an upstream answer is used. @default 5000 */
  ttlMs?: number;
  /** The secret caller tags are HMACs under. @default undefined: generated once and kept in the store (memory: per process) */
  secret?: string;
  /** How long one Redis operation may take before the store is bypassed. @default 100 */
  timeoutMs?: number;
  /** Answers kept in memory at most. @default 10000 */
  maxEntries?: number;
  /** Characters (about bytes) of answers kept in memory at most. @default 67108864 */
  maxBytes?: number;
}

export interface Stores {
  /** Where answers, generations and budgets live. */
  shared: SharedStore;
  /** This instance's memory (the same store when `shared` is memory). */
  local: SharedStore;
  close(): Promise<void>;
}

export interface StoreEvents {
  onFailure?(): void;
  onChange?(up: boolean): void;
}

/** `settings` undefined: a memory store for the upstream budget alone. */
export function openStores(settings: CacheSettings | undefined, logger: Logger, events: StoreEvents = {}): Stores {
  const local = createMemoryStore({ maxEntries: settings?.maxEntries, maxBytes: settings?.maxBytes, secret: settings?.secret });
  if (settings === undefined || settings.store === 'memory') return { shared: local, local, close: () => local.close() };
  const shared = createRedisStore({ url: settings.store, timeoutMs: settings.timeoutMs, secret: settings.secret, logger, ...events });
  return {
    shared,
    local,
    async close() {
      await shared.close();
      await local.close();
    },
  };
}
