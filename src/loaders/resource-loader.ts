// Per-request loaders for one REST resource: list pages and records by id, deduplicated; a record
// any list page brought is answered from that page, so a lookup after a list costs no upstream call.
import DataLoader from 'dataloader';
import { isNotFound } from '../errors.ts';
import type { Page } from '../rest/types.ts';

/** How one REST resource is listed and retrieved under its parent (an organization or project). */
export interface RestResource<Raw, R extends Raw> {
  list(parentId: string, params: { limit: number; offset: number }): Promise<Page<Raw>>;
  /** Absent for resources without a REST retrieve (invites, members): those are found by paging. */
  retrieve?: (parentId: string, id: string) => Promise<Raw>;
  /** Attaches, in place, the parent ids the record's global id needs (REST records lack them). */
  tag(record: Raw, parentId: string): R;
  idOf(record: Raw): string;
}

/** The page size used when scanning a list to find records by id. */
const SCAN_PAGE_SIZE = 100;

const SEP = '\u0000';
const recordKey = (parentId: string, id: string) => parentId + SEP + id;

export class ResourceLoader<Raw, R extends Raw = Raw> {
  /**
   * List pages by parent, size and offset. A plain map of promises, not a DataLoader: REST has no
   * batch endpoint, so each page is its own call and batching them would only add a tick and garbage.
   */
  private readonly pages = new Map<string, Promise<Page<R>>>();
  private readonly records: DataLoader<string, R | null>;
  /** Every record a list page brought in this request, by parent and then id (no joined key to build per record). */
  private readonly listed = new Map<string, Map<string, R>>();
  /** List pages on their way, by parent: a lookup waits for them before calling on its own. */
  private readonly pagesInFlight = new Map<string, Set<Promise<unknown>>>();
  /** The list's `count` as the latest page of each parent told it. */
  private readonly counts = new Map<string, number>();

  constructor(private readonly resource: RestResource<Raw, R>) {
    // Lookups dispatch on setImmediate, after the list pages this tick's resolvers asked for have
    // started, so a sibling list can answer them.
    this.records = new DataLoader((keys) => this.loadRecords(keys), { batchScheduleFn: (dispatch) => setImmediate(dispatch) });
  }

  /** One page of the parent's list; identical page requests in one GraphQL request are made once. */
  page(parentId: string, limit: number, offset: number): Promise<Page<R>> {
    const key = parentId + SEP + limit + SEP + offset;
    let page = this.pages.get(key);
    if (!page) {
      page = this.fetchPage(parentId, limit, offset);
      this.pages.set(key, page);
    }
    return page;
  }

  /**
   * The list's total count: taken from a page this request fetches anyway when there is one,
   * else from the smallest page the upstream serves.
   */
  async count(parentId: string): Promise<number> {
    await new Promise(setImmediate);
    await Promise.allSettled(this.pagesInFlight.get(parentId) ?? []);
    return this.counts.get(parentId) ?? (await this.page(parentId, 1, 0)).count;
  }

  /** The record, or null when the upstream does not have it. */
  byId(parentId: string, id: string): Promise<R | null> {
    const listed = this.listed.get(parentId)?.get(id);
    return listed ? Promise.resolve(listed) : this.records.load(recordKey(parentId, id));
  }

  /** Makes later loads in this request see the record as given (after a write). */
  replace(parentId: string, record: Raw): R {
    const tagged = this.resource.tag(record, parentId);
    const id = this.resource.idOf(tagged);
    const key = recordKey(parentId, id);
    this.records.clear(key).prime(key, tagged);
    this.listedUnder(parentId).set(id, tagged);
    this.pages.clear();
    this.counts.clear();
    return tagged;
  }

  /** Forgets the record and every cached page (after a write changed or removed it). */
  forget(parentId: string, id: string): void {
    this.records.clear(recordKey(parentId, id));
    this.listed.get(parentId)?.delete(id);
    this.pages.clear();
    this.counts.clear();
  }

  private listedUnder(parentId: string): Map<string, R> {
    let listed = this.listed.get(parentId);
    if (!listed) {
      listed = new Map();
      this.listed.set(parentId, listed);
    }
    return listed;
  }

  private async fetchPage(parentId: string, limit: number, offset: number): Promise<Page<R>> {
    const pending = this.resource.list(parentId, { limit, offset });
    const inFlight = this.pagesInFlight.get(parentId) ?? new Set();
    this.pagesInFlight.set(parentId, inFlight.add(pending));
    try {
      const page = await pending;
      this.counts.set(parentId, page.count);
      // Not primed into `records` (a promise per record, for lookups most queries never make):
      // loadRecords consults `listed` first.
      const listed = this.listedUnder(parentId);
      for (const record of page.results) listed.set(this.resource.idOf(record), this.resource.tag(record, parentId));
      // Tagging is in place, so the page now holds tagged records.
      return page as Page<R>;
    } finally {
      inFlight.delete(pending);
    }
  }

  private async loadRecords(keys: readonly string[]): Promise<(R | null | Error)[]> {
    const idsByParent = new Map<string, string[]>();
    for (const key of keys) {
      const [parentId, id] = key.split(SEP) as [string, string];
      const ids = idsByParent.get(parentId) ?? [];
      ids.push(id);
      idsByParent.set(parentId, ids);
    }
    const found = new Map<string, R | null | Error>();
    await Promise.all(
      [...idsByParent].map(async ([parentId, ids]) => {
        await Promise.allSettled(this.pagesInFlight.get(parentId) ?? []);
        const listed = this.listed.get(parentId);
        const unlisted = ids.filter((id) => !listed?.has(id));
        const results = unlisted.length > 0 ? await this.loadUnderParent(parentId, unlisted) : [];
        unlisted.forEach((id, i) => found.set(recordKey(parentId, id), results[i] as R | null | Error));
        for (const id of ids) {
          const record = this.listed.get(parentId)?.get(id);
          if (record) found.set(recordKey(parentId, id), record);
        }
      }),
    );
    return keys.map((key) => found.get(key) ?? null);
  }

  /**
   * One id with a REST retrieve: retrieve it. Several ids, or a resource without retrieve: scan the
   * parent's list a page at a time until all are found, which costs fewer calls than one each.
   */
  private async loadUnderParent(parentId: string, ids: string[]): Promise<(R | null | Error)[]> {
    const { retrieve } = this.resource;
    if (retrieve && ids.length === 1) {
      const [id] = ids as [string];
      try {
        return [this.resource.tag(await retrieve(parentId, id), parentId)];
      } catch (error) {
        return [isNotFound(error) ? null : asError(error)];
      }
    }
    try {
      const wanted = new Set(ids);
      const byId = new Map<string, R>();
      for (let offset = 0; ; offset += SCAN_PAGE_SIZE) {
        const page = await this.page(parentId, SCAN_PAGE_SIZE, offset);
        for (const record of page.results) {
          const id = this.resource.idOf(record);
          if (wanted.has(id)) byId.set(id, record);
        }
        const exhausted = page.results.length === 0 || offset + page.results.length >= page.count;
        if (byId.size === wanted.size || exhausted) break;
        // A capped upstream returns fewer than asked: continue right after what it returned.
        offset += page.results.length - SCAN_PAGE_SIZE;
      }
      return ids.map((id) => byId.get(id) ?? null);
    } catch (error) {
      if (isNotFound(error)) return ids.map(() => null);
      return ids.map(() => asError(error));
    }
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
