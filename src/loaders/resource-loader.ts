// Per-request loaders for one REST resource: list pages and records by id, deduplicated, with
// records primed from every list page so a lookup after a list costs no upstream call.
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

export interface PageRequest {
  parentId: string;
  limit: number;
  offset: number;
}

/** The page size used when scanning a list to find records by id. */
const SCAN_PAGE_SIZE = 100;

const SEP = '\u0000';
const recordKey = (parentId: string, id: string) => parentId + SEP + id;

export class ResourceLoader<Raw, R extends Raw = Raw> {
  private readonly pages: DataLoader<PageRequest, Page<R>, string>;
  private readonly records: DataLoader<string, R | null>;

  constructor(private readonly resource: RestResource<Raw, R>) {
    this.pages = new DataLoader((requests) => settleEach(requests, (r) => this.fetchPage(r)), {
      cacheKeyFn: (r) => r.parentId + SEP + r.limit + SEP + r.offset,
    });
    this.records = new DataLoader((keys) => this.loadRecords(keys));
  }

  /** One page of the parent's list; identical page requests in one GraphQL request are made once. */
  page(parentId: string, limit: number, offset: number): Promise<Page<R>> {
    return this.pages.load({ parentId, limit, offset });
  }

  /** The record, or null when the upstream does not have it. */
  byId(parentId: string, id: string): Promise<R | null> {
    return this.records.load(recordKey(parentId, id));
  }

  /** Makes later loads in this request see the record as given (after a write). */
  replace(parentId: string, record: Raw): R {
    const tagged = this.resource.tag(record, parentId);
    const key = recordKey(parentId, this.resource.idOf(tagged));
    this.records.clear(key).prime(key, tagged);
    this.pages.clearAll();
    return tagged;
  }

  /** Forgets the record and every cached page (after a write changed or removed it). */
  forget(parentId: string, id: string): void {
    this.records.clear(recordKey(parentId, id));
    this.pages.clearAll();
  }

  private async fetchPage({ parentId, limit, offset }: PageRequest): Promise<Page<R>> {
    const page = await this.resource.list(parentId, { limit, offset });
    for (const record of page.results) {
      this.records.prime(recordKey(parentId, this.resource.idOf(record)), this.resource.tag(record, parentId));
    }
    // Tagging is in place, so the page now holds tagged records.
    return page as Page<R>;
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
        const results = await this.loadUnderParent(parentId, ids);
        ids.forEach((id, i) => found.set(recordKey(parentId, id), results[i] as R | null | Error));
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

/** Runs one async job per key concurrently; a failure becomes that key's Error (DataLoader's contract). */
export function settleEach<K, V>(keys: readonly K[], job: (key: K) => Promise<V>): Promise<(V | Error)[]> {
  return Promise.all(keys.map((key) => job(key).catch(asError)));
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
