// Per-request loaders for one REST resource: list pages and records by id, deduplicated; a record
// any list page brought is answered from that page, so a lookup after a list costs no upstream call.
import DataLoader from 'dataloader';
import type { Page } from '../wire/rest-types.ts';
import { lookupFailure, scanList } from './list-scan.ts';

/** How one REST resource is listed and found by id under its parent (an organization or project). */
type RestResource<Raw, R extends Raw> = {
  list(parentId: string, params: { limit: number; offset: number }): Promise<Page<Raw>>;
  /** Attaches, in place, the parent ids the record's global id needs (REST records lack them). */
  tag(record: Raw, parentId: string): R;
  idOf(record: Raw): string;
} & (
  | { retrieve(parentId: string, id: string): Promise<Raw> }
  /** Resources without a REST retrieve (invites, members) are found by paging, this many pages at most. */
  | { maxScanPages: number }
);

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
  /**
   * Records of pages not yet in `listed`, by parent: indexed on the first lookup or write under
   * that parent, which most queries never make (a map entry per listed record otherwise).
   */
  private readonly unindexed = new Map<string, R[][]>();
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
    const listed = this.listedOf(parentId)?.get(id);
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
    this.listedOf(parentId)?.delete(id);
    this.pages.clear();
    this.counts.clear();
  }

  private listedUnder(parentId: string): Map<string, R> {
    let listed = this.listedOf(parentId);
    if (!listed) {
      listed = new Map();
      this.listed.set(parentId, listed);
    }
    return listed;
  }

  /** The parent's listed records, with the pages that came since the last lookup indexed first, in arrival order. */
  private listedOf(parentId: string): Map<string, R> | undefined {
    const pages = this.unindexed.get(parentId);
    if (!pages) return this.listed.get(parentId);
    this.unindexed.delete(parentId);
    const listed = this.listed.get(parentId) ?? new Map<string, R>();
    this.listed.set(parentId, listed);
    for (const records of pages) for (const record of records) listed.set(this.resource.idOf(record), record);
    return listed;
  }

  /** `.then` rather than an async function: a page in flight holds no suspended frame here. */
  private fetchPage(parentId: string, limit: number, offset: number): Promise<Page<R>> {
    let pending: Promise<Page<Raw>>;
    try {
      pending = this.resource.list(parentId, { limit, offset });
    } catch (error) {
      return Promise.reject(error); // e.g. no key: the page's promise fails, as from an async function
    }
    const inFlight = this.pagesInFlight.get(parentId) ?? new Set();
    this.pagesInFlight.set(parentId, inFlight.add(pending));
    return pending.then(
      (page) => {
        inFlight.delete(pending);
        this.counts.set(parentId, page.count);
        // Not primed into `records` (a promise per record, for lookups most queries never make):
        // loadRecords consults `listed` first.
        for (const record of page.results) this.resource.tag(record, parentId);
        // Tagging is in place, so the page now holds tagged records.
        const tagged = page as Page<R>;
        const pages = this.unindexed.get(parentId);
        if (pages) pages.push(tagged.results);
        else this.unindexed.set(parentId, [tagged.results]);
        return tagged;
      },
      (error: unknown) => {
        inFlight.delete(pending);
        throw error;
      },
    );
  }

  /**
   * Ids wait for their parent's list pages in flight, which may hold them. The others are retrieved,
   * one call each, all at once; without a retrieve, each parent's list is scanned once for all of them.
   */
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
        const listed = this.listedOf(parentId);
        const unlisted = ids.filter((id) => !listed?.has(id));
        const results = await this.lookUp(parentId, unlisted);
        for (const [i, id] of unlisted.entries()) found.set(recordKey(parentId, id), results[i] as R | null | Error);
        // Read again after the lookups: a scan may have listed pages meanwhile.
        const listedNow = this.listedOf(parentId);
        for (const id of ids) {
          const record = listedNow?.get(id);
          if (record) found.set(recordKey(parentId, id), record);
        }
      }),
    );
    return keys.map((key) => found.get(key) ?? null);
  }

  private lookUp(parentId: string, ids: string[]): Promise<(R | null | Error)[]> {
    const { resource } = this;
    if ('retrieve' in resource) return Promise.all(ids.map((id) => this.retrieveOne(resource.retrieve, parentId, id)));
    if (ids.length === 0) return Promise.resolve([]);
    return scanList(ids, {
      page: (limit, offset) => this.page(parentId, limit, offset),
      idOf: (record) => resource.idOf(record),
      maxPages: resource.maxScanPages,
    });
  }

  /** One record's own call: its 404 is its null, its failure its own error. */
  private async retrieveOne(
    retrieve: (parentId: string, id: string) => Promise<Raw>,
    parentId: string,
    id: string,
  ): Promise<R | null | Error> {
    try {
      return this.resource.tag(await retrieve(parentId, id), parentId);
    } catch (error) {
      return lookupFailure(error);
    }
  }
}
