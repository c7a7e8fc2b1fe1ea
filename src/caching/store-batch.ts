// Store round trips per level and per request, not per upstream call. The GETs started in one
// tick (a level of a query, and those of any other request at that moment) are looked up together:
// one read of each caller tag's entries and one read of the generations they depend on, all issued
// at once (each read stays within one hash tag). Answers are written per request: all of a
// request's answers as it ends, in one write per caller tag (a request has one), so a cold
// dashboard's 21 answers take one round trip, not one each as they arrive.
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

/**
 * An answer to store. It is written once, by the first request holding it to end (or at once, see
 * EntryWriter), and expires CACHE_TTL_MS after it was fetched, however late it is written: no
 * answer is used longer than that after the upstream gave it.
 */
export class PendingEntry {
  readonly written: Promise<void>;
  #done!: () => void;
  #taken = false;

  constructor(
    readonly tag: string,
    readonly id: string,
    readonly value: string,
    /** performance.now() past which the answer is not used. */
    readonly expiresAt: number,
  ) {
    this.written = new Promise((resolve) => {
      this.#done = resolve;
    });
  }

  /** Takes the entry to write it: false when another request has taken it already. */
  take(): boolean {
    if (this.#taken) return false;
    this.#taken = true;
    return true;
  }

  /** Written, or could not be (the store's failure is its own business). */
  settle(): void {
    this.#done();
  }
}

export class EntryWriter {
  /** Entries no request will write: sent together on the next tick. */
  #orphans: PendingEntry[] = [];

  constructor(
    private readonly store: SharedStore,
    private readonly ttlMs: number,
  ) {}

  /** The entry of an answer the upstream just gave. */
  entry(tag: string, id: string, value: string): PendingEntry {
    return new PendingEntry(tag, id, value, performance.now() + this.ttlMs);
  }

  /**
   * Writes those of `entries` no one is writing yet and not expired yet, one write per caller tag,
   * and resolves once every one of `entries` is written (or could not be), whoever writes it.
   */
  async write(entries: Iterable<PendingEntry>): Promise<void> {
    const all = [...entries];
    const byTag = new Map<string, PendingEntry[]>();
    const now = performance.now();
    for (const entry of all) {
      if (!entry.take()) continue;
      if (entry.expiresAt <= now) {
        entry.settle();
        continue;
      }
      const ofTag = byTag.get(entry.tag);
      if (ofTag) ofTag.push(entry);
      else byTag.set(entry.tag, [entry]);
    }
    for (const [tag, ofTag] of byTag) {
      const settle = () => {
        for (const entry of ofTag) entry.settle();
      };
      const writes = ofTag.map(({ id, value, expiresAt }) => ({ id, value, ttlMs: Math.ceil(expiresAt - now) }));
      this.store.writeEntries(tag, writes).then(settle, settle);
    }
    await Promise.all(all.map((entry) => entry.written));
  }

  /** An entry whose request ended before its answer came: written with the others of this tick. */
  writeSoon(entry: PendingEntry): void {
    if (this.#orphans.length === 0)
      setImmediate(() => {
        const orphans = this.#orphans;
        this.#orphans = [];
        void this.write(orphans);
      });
    this.#orphans.push(entry);
  }
}
