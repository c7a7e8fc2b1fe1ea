// Store round trips per tick, not per upstream call. The GETs started in one tick (a level of a
// query, and those of any other request at that moment) are looked up together: one read of each
// caller tag's entries and one read of the generations they depend on, all issued at once (each
// read stays within one hash tag). Answers to store are written the same way: one write per caller tag.
import type { SharedStore } from '../store/shared-store.ts';

interface Lookup {
  /** The cached answer's text, when there is one and its generations are still current. */
  text?: string;
  /**
   * The generations the answer depends on as they are now: what an answer fetched next is stored
   * with. Undefined when the store could not say (then nothing is stored).
   */
  generations?: string;
}

/** An entry is its generations, a newline, and the answer's text (generations hold no newline). */
export const encodeEntry = (generations: string, text: string) => `${generations}\n${text}`;

function validText(entry: string | null | undefined, generations: string): string | undefined {
  if (!entry || entry.length <= generations.length || entry.charCodeAt(generations.length) !== 10 || !entry.startsWith(generations))
    return undefined;
  return entry.slice(generations.length + 1);
}

/** A scope never bumped (or forgotten) reads as this. */
const NO_GENERATION = '-';

interface PendingLookup {
  scopes: readonly string[];
  resolve(lookup: Lookup): void;
}

export class LookupBatch {
  /** By caller tag, then entry id: identical lookups in one tick share one answer. */
  #pending = new Map<string, Map<string, { lookup: Promise<Lookup>; waiter: PendingLookup }>>();

  constructor(private readonly store: SharedStore) {}

  lookup(tag: string, id: string, scopes: readonly string[]): Promise<Lookup> {
    if (this.#pending.size === 0) setImmediate(() => void this.#flush());
    let byId = this.#pending.get(tag);
    if (!byId) {
      byId = new Map();
      this.#pending.set(tag, byId);
    }
    const pending = byId.get(id);
    if (pending) return pending.lookup;
    let resolve!: (lookup: Lookup) => void;
    const lookup = new Promise<Lookup>((done) => {
      resolve = done;
    });
    byId.set(id, { lookup, waiter: { scopes, resolve } });
    return lookup;
  }

  async #flush(): Promise<void> {
    const batch = this.#pending;
    this.#pending = new Map();
    const scopes = [...new Set([...batch.values()].flatMap((byId) => [...byId.values()].flatMap(({ waiter }) => waiter.scopes)))];
    const generations = this.store.readGenerations(scopes);
    // Each caller's read fails alone; the generations' failure fails them all. Either way: no answer, no generations.
    generations.catch(() => undefined);
    await Promise.all(
      [...batch].map(async ([tag, byId]) => {
        const ids = [...byId.keys()];
        let entries: (string | null)[];
        let current: (string | null)[];
        try {
          [entries, current] = await Promise.all([this.store.readEntries(tag, ids), generations]);
        } catch {
          for (const { waiter } of byId.values()) waiter.resolve({});
          return;
        }
        const generationOf = new Map(scopes.map((scope, i) => [scope, current[i] ?? NO_GENERATION]));
        ids.forEach((id, i) => {
          const { waiter } = byId.get(id) as { waiter: PendingLookup };
          const now = waiter.scopes.map((scope) => generationOf.get(scope)).join(' ');
          waiter.resolve({ text: validText(entries[i], now), generations: now });
        });
      }),
    );
  }
}

export class WriteBatch {
  #pending = new Map<string, { entries: { id: string; value: string }[]; written: Promise<void> }>();

  constructor(
    private readonly store: SharedStore,
    private readonly ttlMs: number,
  ) {}

  /** Resolves once the entry is written, or could not be (the store's failure is its own business). */
  write(tag: string, id: string, value: string): Promise<void> {
    let pending = this.#pending.get(tag);
    if (!pending) {
      const entries: { id: string; value: string }[] = [];
      const written = new Promise<void>((resolve) =>
        setImmediate(() => {
          this.#pending.delete(tag);
          this.store.writeEntries(tag, entries, this.ttlMs).then(resolve, () => resolve());
        }),
      );
      pending = { entries, written };
      this.#pending.set(tag, pending);
    }
    pending.entries.push({ id, value });
    return pending.written;
  }
}
