// The store in this instance's memory (CACHE=memory, and the per-instance budget while Redis is
// away). Cached answers are bounded by count and by size (lru-cache); generations and budget
// counters are small and bounded by count; idempotency records by count, overall and per caller
// tag, never evicted early.

import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import {
  type BudgetWindowAt,
  type BudgetWindowCheck,
  CallerRecordsFullError,
  IdempotencyStoreFullError,
  type SharedStore,
  type WindowCounts,
} from './shared-store.ts';

interface MemoryStoreOptions {
  /**
   * Cached answers kept at most (CACHE_MAX_ENTRIES), and their characters (and their ids'): about
   * bytes, for the ASCII JSON answers usually are (CACHE_MAX_BYTES). Unset (no CACHE): none.
   */
  answers?: { maxEntries: number; maxBytes: number };
  /** The secret caller tags are made with. @default random, per process */
  secret?: string;
  /** Idempotency records kept at most; past it new claims are refused (IDEMPOTENCY_MAX_ENTRIES). */
  idempotencyMaxEntries: number;
}

/** Scopes with a generation at once; past it every generation and every cached answer is dropped (see bumpGenerations). */
const MAX_GENERATIONS = 100_000;
/** Budget counters (caller tags × window lengths × 2) at once; the least recently used go first. */
const MAX_BUDGET_COUNTERS = 100_000;

export function createMemoryStore(options: MemoryStoreOptions): SharedStore {
  const entries = new LRUCache<string, string>({
    max: options.answers?.maxEntries ?? 1,
    maxSize: options.answers?.maxBytes ?? 1,
    sizeCalculation: (value, key) => value.length + key.length,
  });
  const generations = new Map<string, string>();
  // Made on first use: a cache without a budget never needs it (lru-cache allocates for `max` up front).
  let budgetCounters: LRUCache<string, number> | undefined;
  const budget = () => (budgetCounters ??= new LRUCache<string, number>({ max: MAX_BUDGET_COUNTERS }));
  // Also made on first use. Its bound is checked before each claim, so lru-cache never evicts one:
  // a record forgotten before its time would let a retry write again. Records are counted per
  // caller tag as they come and go (a replaced record stays counted).
  let idempotencyRecords: LRUCache<string, string> | undefined;
  const idempotencyMax = options.idempotencyMaxEntries;
  const recordsPerTag = new Map<string, number>();
  const recordsOf = (tag: string) => recordsPerTag.get(tag) ?? 0;
  const countRecord = (tag: string, delta: number) => {
    const count = recordsOf(tag) + delta;
    if (count > 0) recordsPerTag.set(tag, count);
    else recordsPerTag.delete(tag);
  };
  const idempotency = () =>
    (idempotencyRecords ??= new LRUCache<string, string>({
      max: idempotencyMax,
      noDisposeOnSet: true,
      dispose: (_record, key) => countRecord(tagOf(key), -1),
    }));
  /** Stores a record; counts it unless it replaces one still there (`get` drops an expired one first). */
  const keepRecord = (tag: string, id: string, record: string, ttlMs: number) => {
    const records = idempotency();
    const key = entryKey(tag, id);
    if (records.get(key) === undefined) countRecord(tag, 1);
    records.set(key, record, { ttl: ttlMs });
  };
  const secret = options.secret ?? randomBytes(32).toString('base64url');
  const entryKey = (tag: string, id: string) => `${tag} ${id}`;
  const tagOf = (key: string) => key.slice(0, key.indexOf(' '));
  const counterKey = (tag: string, window: BudgetWindowAt, index = window.index) => `${tag} ${window.windowMs} ${index}`;
  const countsOf = (tag: string, window: BudgetWindowAt): WindowCounts => ({
    current: budget().get(counterKey(tag, window)) ?? 0,
    previous: budget().get(counterKey(tag, window, window.index - 1)) ?? 0,
  });
  const add = (tag: string, window: BudgetWindowAt, delta: number) => {
    const key = counterKey(tag, window);
    // Kept while it can still count: through the next window, as that one's previous.
    budget().set(key, Math.max(0, (budget().get(key) ?? 0) + delta), { ttl: 2 * window.windowMs });
  };

  return {
    kind: 'memory',
    available: true,
    secret,
    async readEntries(tag, ids) {
      return ids.map((id) => entries.get(entryKey(tag, id)) ?? null);
    },
    async writeEntries(tag, written) {
      for (const { id, value, ttlMs } of written) entries.set(entryKey(tag, id), value, { ttl: ttlMs });
    },
    async readGenerations(scopes) {
      return scopes.map((scope) => generations.get(scope) ?? null);
    },
    async bumpGenerations(scopes) {
      // A generation that was forgotten would read as null again, which entries stored before its
      // first bump also carry: so none is ever forgotten alone. At the bound, all go, with every
      // answer that could have been checked against them.
      if (generations.size + scopes.length > MAX_GENERATIONS) {
        generations.clear();
        entries.clear();
      }
      for (const scope of scopes) generations.set(scope, newGeneration());
    },
    async takeBudget(tag, windows, amount) {
      const counts = windows.map((window) => countsOf(tag, window));
      const taken = windows.every((window, i) => fits(window, counts[i] as WindowCounts, amount));
      if (taken) for (const window of windows) add(tag, window, amount);
      return { taken, counts };
    },
    async adjustBudget(tag, windows, delta) {
      for (const window of windows) add(tag, window, delta);
    },
    async readBudget(tag, windows) {
      return windows.map((window) => countsOf(tag, window));
    },
    async claimIdempotencyKey(tag, id, record, ttlMs, maxPerCaller) {
      const records = idempotency();
      const existing = records.get(entryKey(tag, id));
      if (existing !== undefined) return existing;
      // Expired records still count until purged: a walk over them all, only at a bound.
      if (records.size >= idempotencyMax || recordsOf(tag) >= maxPerCaller) records.purgeStale();
      if (recordsOf(tag) >= maxPerCaller) throw new CallerRecordsFullError();
      if (records.size >= idempotencyMax) throw new IdempotencyStoreFullError(firstExpiryMs(records));
      keepRecord(tag, id, record, ttlMs);
      return null;
    },
    async settleIdempotencyKey(tag, id, record, ttlMs) {
      keepRecord(tag, id, record, ttlMs);
    },
    async releaseIdempotencyKey(tag, id, claimRecord) {
      const key = entryKey(tag, id);
      if (idempotency().get(key) === claimRecord) idempotency().delete(key);
    },
    async close() {
      entries.clear();
      idempotencyRecords?.clear();
    },
  };
}

/** Whether `amount` more calls keep a window's weighted count within its limit (the Lua in redis-store.ts does the same). */
export function fits(window: BudgetWindowCheck, counts: WindowCounts, amount: number): boolean {
  return counts.current + counts.previous * window.previousWeight + amount <= window.limit;
}

/** A generation no scope had before: random, so one forgotten and made again cannot repeat an old one. */
export function newGeneration(): string {
  return randomBytes(9).toString('base64url');
}

/** How long until the first of `records` expires (each has a TTL), in ms. A walk over them all, made only when the store is full. */
function firstExpiryMs(records: LRUCache<string, string>): number {
  let first = Number.POSITIVE_INFINITY;
  for (const key of records.keys()) first = Math.min(first, records.getRemainingTTL(key));
  return Number.isFinite(first) ? Math.max(0, first) : 0;
}
