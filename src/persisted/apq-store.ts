// Where automatic persisted queries are kept: query text by its sha256 hash, most recently used
// kept, bounded by count and by total size (a registration is stored before it is validated, so
// the bound must hold for any text a caller sends). Holds query text only, never data. With a
// shared store (CACHE=redis) a text is kept there too, within the same bounds, so a query
// registered on one instance runs by its hash on every one; this instance's memory is asked first,
// and a text it serves counts as used in the shared store too (at most once a minute per text), so
// the shared store's least recently used are those no instance uses. Only a registration whose
// operation passed validation and the query limits reaches the shared store (`share`): any caller
// can register, and what it sends must not travel to Redis, nor push other instances' texts out,
// unless it is an operation the gateway would run.
import { createHash } from 'node:crypto';
import type { APQStore } from '@graphql-yoga/plugin-apq';

/** A text served from this instance's memory is marked used in the shared store at most this often. */
const SHARED_USE_INTERVAL_MS = 60_000;

interface ApqStoreLimits {
  /** @default 1000 */
  maxEntries?: number;
  /** Total characters of the stored queries. @default 5_000_000 */
  maxChars?: number;
}

/** Query texts every instance sees (src/store's SharedQueries, restated: persisted imports nothing). Its failures are never the caller's. */
export interface SharedQueries {
  /** The text of `hash` (null: none), which then counts as used. */
  read(hash: string): Promise<string | null>;
  write(hash: string, text: string, bounds: Required<ApqStoreLimits>): Promise<void>;
}

/**
 * Whether `hash` is the APQ hash (sha256, lowercase hex) of `text`. Checked on every text that goes
 * to or comes from the shared store: a request may carry any hash beside its query (an extension
 * the APQ plugin ignores), and no instance may serve a text under a hash that is not its own.
 */
const isHashOf = (hash: string, text: string) => apqHash(text) === hash;

/** The APQ hash of a text: sha256, lowercase hex, computed in-process (the plugin's default uses WebCrypto). */
export const apqHash = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Longer texts are kept in this instance's memory only. MAX_TOKENS (2000) bounds a query's tokens, not
 * its comments and white space: without this, one padded registration could fill a fiftieth of the
 * shared bound, and a few dozen push every instance's texts out.
 */
const MAX_SHARED_TEXT_CHARS = 32_768;

/** Registrations this instance kept but has not shared yet, at most this many (the oldest dropped). */
const MAX_UNSHARED_REGISTRATIONS = 1000;

interface ApqStoreWithSharing extends APQStore {
  /** The operation of `query` is about to run: if it was registered here under `hash`, the shared store keeps it too. */
  share(hash: string, query: string): Promise<void>;
  /** The text this instance's memory holds under `hash` (then counted as used there), without asking the shared store. */
  inMemory(hash: string): string | null;
}

export function createApqStore(limits: ApqStoreLimits = {}, shared?: SharedQueries): ApqStoreWithSharing {
  const bounds = { maxEntries: limits.maxEntries ?? 1000, maxChars: limits.maxChars ?? 5_000_000 };
  const local = createLocalApqStore(bounds);
  if (!shared) return { ...local, share: async () => undefined, inMemory: local.get };
  /** Hashes only: a text is the one its hash was checked against, and holding texts here would escape the bound on them. */
  const unshared = new Set<string>();
  /** When this instance last told the shared store of each text's use (cleared past twice the bound). */
  const sharedUseAt = new Map<string, number>();
  const usedNow = (hash: string) => {
    if (sharedUseAt.size >= 2 * bounds.maxEntries) sharedUseAt.clear();
    sharedUseAt.set(hash, performance.now());
  };
  return {
    inMemory: local.get,
    async get(hash) {
      const known = local.get(hash);
      if (known !== null) {
        if (performance.now() - (sharedUseAt.get(hash) ?? Number.NEGATIVE_INFINITY) >= SHARED_USE_INTERVAL_MS) {
          usedNow(hash);
          void shared.read(hash).catch(() => null);
        }
        return known;
      }
      // A store that cannot answer knows nothing: the client sends the text again (the APQ protocol).
      const text = await shared.read(hash).catch(() => null);
      if (text === null || !isHashOf(hash, text)) return null;
      local.set(hash, text);
      usedNow(hash);
      return text;
    },
    set(hash, text) {
      local.set(hash, text);
      unshared.delete(hash);
      unshared.add(hash);
      const [oldest] = unshared;
      if (oldest !== undefined && unshared.size > MAX_UNSHARED_REGISTRATIONS) unshared.delete(oldest);
    },
    async share(hash, query) {
      if (!unshared.has(hash) || query.length > MAX_SHARED_TEXT_CHARS || !isHashOf(hash, query)) return;
      unshared.delete(hash);
      usedNow(hash);
      await shared.write(hash, query, bounds).catch(() => undefined);
    },
  };
}

function createLocalApqStore({ maxEntries, maxChars }: Required<ApqStoreLimits>): {
  get(hash: string): string | null;
  set(hash: string, query: string): void;
} {
  const queries = new Map<string, string>();
  let chars = 0;
  const remove = (hash: string, query: string) => {
    queries.delete(hash);
    chars -= query.length;
  };
  return {
    get(hash) {
      const query = queries.get(hash);
      if (query === undefined) return null;
      queries.delete(hash); // re-insert: Map order is the eviction order
      queries.set(hash, query);
      return query;
    },
    set(hash, query) {
      const previous = queries.get(hash);
      if (previous !== undefined) remove(hash, previous);
      if (query.length > maxChars) return;
      queries.set(hash, query);
      chars += query.length;
      for (const [oldest, text] of queries) {
        if (queries.size <= maxEntries && chars <= maxChars) break;
        remove(oldest, text);
      }
    },
  };
}
