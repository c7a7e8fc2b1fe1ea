// What the upstream cache, the upstream budget and idempotent mutations keep between requests:
// cached answers per caller tag, a generation per invalidation scope, budget counters per caller
// tag, idempotency records per caller tag, and the secret the caller tags are made with. One interface, two places: this instance's memory (memory-store.ts)
// or Redis, shared by every instance (redis-store.ts).

/** The generation scope every cached answer depends on: bumping it makes them all stale. */
export const GLOBAL_SCOPE = 'all';

/** One fixed window of a budget, as seen at one moment (src/budget/sliding-window.ts). */
export interface BudgetWindowAt {
  /** The window's length: each length has its own counters. */
  windowMs: number;
  /** `floor(now / windowMs)`: the current window; `index - 1` is the previous one. */
  index: number;
}

/** A window to take from, with how much it allows now. */
export interface BudgetWindowCheck extends BudgetWindowAt {
  limit: number;
  /** The share of the previous window's count that still counts (1 as the current window starts, 0 as it ends). */
  previousWeight: number;
}

/** A window's calls so far: its current fixed window's and its previous one's. */
export interface WindowCounts {
  current: number;
  previous: number;
}

export interface SharedStore {
  readonly kind: 'memory' | 'redis';
  /** Whether operations are being sent at all; while not, each one fails at once (StoreUnavailableError). */
  readonly available: boolean;
  /** The secret caller tags are made with, once every instance agrees on it; undefined until then. */
  readonly secret: string | undefined;
  /** Cached answers of one caller tag by entry id, in order (null: none), in one round trip. */
  readEntries(tag: string, ids: readonly string[]): Promise<(string | null)[]>;
  /** Stores answers of one caller tag, each for its `ttlMs`, in one round trip. */
  writeEntries(tag: string, entries: readonly { id: string; value: string; ttlMs: number }[]): Promise<void>;
  /** The current generation of each scope, in order (null: never bumped, or forgotten long after every entry that saw it). */
  readGenerations(scopes: readonly string[]): Promise<(string | null)[]>;
  /**
   * Gives each scope a new generation that was never used before, so every entry stored under an
   * older one stops being valid. When the store cannot be reached, the bump is kept and made as soon
   * as it is back, before anything else uses it (the promise still rejects).
   */
  bumpGenerations(scopes: readonly string[]): Promise<void>;
  /**
   * Adds `amount` to the current window of every window if each one's weighted count
   * (`current + previous × previousWeight`) stays within its limit, atomically; else adds nothing.
   * `counts` are the counts before.
   */
  takeBudget(tag: string, windows: readonly BudgetWindowCheck[], amount: number): Promise<{ taken: boolean; counts: WindowCounts[] }>;
  /** Adds `delta` to each of these windows' current counters; a negative delta never takes one below 0. */
  adjustBudget(tag: string, windows: readonly BudgetWindowAt[], delta: number): Promise<void>;
  readBudget(tag: string, windows: readonly BudgetWindowAt[]): Promise<WindowCounts[]>;
  /**
   * Stores `record` under an idempotency key of one caller tag for `ttlMs` unless a record is
   * there already, atomically: two requests (on any instances) never both claim one key. Resolves
   * with the record that was there (null: claimed). A new key of a caller tag that has
   * `maxPerCaller` records already is refused (CallerRecordsFullError); so is one past the memory
   * store's bound (StoreUnavailableError): no record is forgotten before its time.
   */
  claimIdempotencyKey(tag: string, id: string, record: string, ttlMs: number, maxPerCaller: number): Promise<string | null>;
  /** Replaces a claimed key's record (the request's outcome), for `ttlMs`. */
  settleIdempotencyKey(tag: string, id: string, record: string, ttlMs: number): Promise<void>;
  /**
   * Forgets a claimed key while it still holds `claimRecord`, the claim's own record: its request
   * sent no write, so the key may be used again. Redis, unreachable: done once it is back (the
   * promise still rejects); so is a claim that failed there, which may have been applied all the same.
   */
  releaseIdempotencyKey(tag: string, id: string, claimRecord: string): Promise<void>;
  close(): Promise<void>;
}

/** How many query texts the shared APQ store keeps, and their total size (the oldest used go first). */
export interface QueryBounds {
  maxEntries: number;
  /** Total length of the texts (bytes in Redis, characters in memory: the same for the ASCII a query is). */
  maxChars: number;
}

/**
 * The query texts of automatic persisted queries by their sha256 hash, shared by every instance, so
 * a query registered on one runs by its hash on all (Redis only: in memory each instance's APQ store
 * is its own). The texts are public: a hash is only ever stored with the text it is the hash of.
 */
export interface SharedQueries {
  /** The text of `hash` (null: none), which then counts as used. */
  read(hash: string): Promise<string | null>;
  /** Stores `text` under `hash`, then drops the least recently used texts past `bounds` (a text larger than all of it is not kept). */
  write(hash: string, text: string, bounds: QueryBounds): Promise<void>;
}

/** A write through the gateway that may have changed what `path` names (src/subscriptions re-polls it). */
export interface PublishedWrite {
  method: string;
  path: string;
}

/**
 * Writes that may have changed something, as every instance on the store hears of them (Redis
 * only), so each one re-polls its own subscriptions they touch. Best effort: while the store is
 * away, a write is heard by its own instance alone, and the others' next poll finds it.
 */
export interface WriteFeed {
  /** Tells every other instance. Never waits, never fails. */
  publish(write: PublishedWrite): void;
  /** `listener` hears each write another instance published (never this instance's own). */
  subscribe(listener: (write: PublishedWrite) => void): void;
}

/** A caller tag has as many idempotency records as it may keep: its new key is refused, no one else's. */
export class CallerRecordsFullError extends Error {
  override readonly name = 'CallerRecordsFullError';
}

/** The store is down, slow, or not connected yet: the caller goes on without it. */
export class StoreUnavailableError extends Error {
  override readonly name: string = 'StoreUnavailableError';
  constructor(reason = 'the shared store is not available') {
    super(reason);
  }
}

/** This instance's idempotency records are at IDEMPOTENCY_MAX_ENTRIES: none is forgotten before its time, so a new key waits for the first to expire. */
export class IdempotencyStoreFullError extends StoreUnavailableError {
  override readonly name = 'IdempotencyStoreFullError';
  /** @param freeInMs how long until the first record expires and makes room */
  constructor(readonly freeInMs: number) {
    super('idempotency records at their bound (IDEMPOTENCY_MAX_ENTRIES)');
  }
}
