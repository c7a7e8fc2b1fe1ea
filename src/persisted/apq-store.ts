// Where automatic persisted queries are kept: query text by its sha256 hash, most recently used
// kept, bounded by count and by total size (a registration is stored before it is validated, so
// the bound must hold for any text a caller sends). Holds query text only, never data.
import type { APQStore } from '@graphql-yoga/plugin-apq';

interface ApqStoreLimits {
  /** @default 1000 */
  maxEntries?: number;
  /** Total characters of the stored queries. @default 5_000_000 */
  maxChars?: number;
}

export function createApqStore({ maxEntries = 1000, maxChars = 5_000_000 }: ApqStoreLimits = {}): APQStore {
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
