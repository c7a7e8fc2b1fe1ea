// The upstream as one GraphQL request sees it with the cache on. A GET is answered from the cache
// when its caller tag has a valid entry (no upstream call, no budget), else by a call shared with
// identical GETs in flight, whose 2xx answer is stored. A write that may have changed something (a
// 2xx, or an outcome the gateway cannot know: a timeout, a 5xx, a connection lost once it was sent)
// makes stale every answer its route can change, for every key, before its answer goes back to the
// resolver: so before the mutation's payload, and before its own re-read. A 4xx says the upstream
// changed nothing: it makes nothing stale, so no caller can wipe the cache with refused writes.

import { callerTag } from '../caller.ts';
import type { SharedStore } from '../store/shared-store.ts';
import { queryString, type UpstreamRequest, type UpstreamResponse, type UpstreamTransport } from '../upstream/transport/transport.ts';
import { UpstreamError, writeMayHaveChanged } from '../upstream/upstream-error.ts';
import { abandoned, type Coalescer, requestDeadline, waitFor } from './coalescer.ts';
import { readScopes, writeScopes } from './scopes.ts';
import { type EntryWriter, encodeEntry, type LookupBatch, type PendingEntry } from './store-batch.ts';

/** What the cache counts (metrics), by route template. */
export interface CacheEvents {
  hit(route: string): void;
  miss(route: string): void;
  /** A GET that waited for another request's identical call instead of making its own. */
  coalesced(route: string): void;
  stored(route: string): void;
  /** A write that made the answers its route can change stale. */
  invalidated(route: string): void;
  /** A write that could not reach the store to do so: other instances may serve those answers until it is back. */
  invalidationFailed(route: string): void;
}

/** What every request's cache shares: one per gateway. */
export interface CacheState {
  store: SharedStore;
  lookups: LookupBatch;
  writer: EntryWriter;
  calls: Coalescer<SharedAnswer>;
  /** Tags the calls in flight (never the store's: it may not be reachable, or agreed, yet). */
  localSecret: string;
  /** Writes this instance made so far: a GET started after a write never joins a call started before it. */
  writeEpoch: number;
  events?: CacheEvents;
}

interface SharedAnswer {
  response: UpstreamResponse;
  /** The answer's entry to store, when it is cached. */
  entry?: PendingEntry;
}

export class RequestCache implements UpstreamTransport {
  #tags: { store: string | undefined; local: string } | undefined;
  /** The entries of the answers this request used (its own and shared ones): written when it ends, and its response waits for them. */
  readonly #entries = new Set<PendingEntry>();
  /** Set as the request ends: its entries being written. */
  #ended: Promise<void> | undefined;

  constructor(
    private readonly base: UpstreamTransport,
    private readonly state: CacheState,
  ) {}

  request<T>(req: UpstreamRequest): Promise<UpstreamResponse<T>> {
    return (req.method === 'GET' ? this.#read(req) : this.#write(req)) as Promise<UpstreamResponse<T>>;
  }

  /**
   * The request ended: writes the answers it used that no other request is writing yet, in one
   * write, and resolves once all of them are in the store (or could not be written). An answer
   * that comes after this is written at once.
   */
  end(): Promise<void> {
    this.#ended ??= this.#entries.size > 0 ? this.state.writer.write(this.#entries) : Promise.resolve();
    return this.#ended;
  }

  async close(): Promise<void> {}

  async #read(req: UpstreamRequest): Promise<UpstreamResponse> {
    const scopes = readScopes(req.path);
    if (!scopes) return this.base.request(req);
    const { state } = this;
    const { route } = req;
    const startedAt = performance.now();
    const tags = this.#tagsOf(req.key);
    const id = req.path + queryString(req.query);
    const lookup = tags.store === undefined ? {} : await state.lookups.lookup(tags.store, id, scopes);
    if (lookup.text !== undefined) {
      state.events?.hit(route);
      return {
        status: 200,
        body: JSON.parse(lookup.text),
        durationMs: Math.round(performance.now() - startedAt),
        attempts: 0,
        source: 'cache',
      };
    }
    state.events?.miss(route);
    // A shared call outlives the request that starts it: a request abandoned meanwhile (its caller
    // left, or its deadline passed while it waited for its lookup or its turn) starts none.
    const deadline = requestDeadline(req);
    const stopped = abandoned(req, deadline);
    if (stopped) throw stopped;
    // Only calls made with the same generations are shared: one started before a write is not
    // joined by a read that started after it.
    const key = `${tags.local} ${state.writeEpoch} ${lookup.generations ?? ''} ${id}`;
    const { call, leader } = state.calls.join(key, () => this.#fetch(req, tags.store, id, lookup.generations, route));
    if (!leader) state.events?.coalesced(route);
    let answer: SharedAnswer;
    try {
      answer = await waitFor(call, req, deadline, leader);
    } catch (error) {
      throw leader || !(error instanceof UpstreamError) || error.source ? error : new UpstreamError({ ...error, source: 'coalesced' });
    }
    // A shared answer is written by whichever of its requests ends first: none waits for another's end.
    if (answer.entry && !this.#ended) this.#entries.add(answer.entry);
    const { response } = answer;
    // Every other waiter parses its own copy: records are tagged in place by each request's loaders.
    // Object.assign, not a spread then added to, which V8 gives a hidden class of its own each time.
    return leader
      ? response
      : Object.assign({}, response, { body: response.text ? JSON.parse(response.text) : undefined, source: 'coalesced' as const });
  }

  /** The shared call: without the leader's signal or deadline, so no waiter can cancel it for the others. */
  async #fetch(
    req: UpstreamRequest,
    storeTag: string | undefined,
    id: string,
    generations: string | undefined,
    route: string,
  ): Promise<SharedAnswer> {
    const response = await this.base.request({ ...req, signal: undefined, deadlineAt: undefined, keepText: true });
    // Checked before any waiter gets the body: an answer the client would refuse is not cached.
    if (storeTag === undefined || generations === undefined || !response.text || !(req.answerShape?.(response.body) ?? true))
      return { response };
    this.state.events?.stored(route);
    const entry = this.state.writer.entry(storeTag, id, encodeEntry(generations, response.text));
    // Held by the request that made the call even if it stopped waiting for it; once it ended, no one holds it.
    if (this.#ended) this.state.writer.writeSoon(entry);
    else this.#entries.add(entry);
    return { response, entry };
  }

  async #write(req: UpstreamRequest): Promise<UpstreamResponse> {
    try {
      const response = await this.base.request(req);
      await this.#invalidate(req);
      return response;
    } catch (error) {
      if (writeMayHaveChanged(error)) await this.#invalidate(req);
      throw error;
    }
  }

  async #invalidate(req: UpstreamRequest): Promise<void> {
    this.state.writeEpoch += 1;
    this.state.events?.invalidated(req.route);
    // An unreachable store keeps the bump and makes it once it is back, and logs that it could not
    // (src/store/redis-store.ts); until then the other instances still serve what it changed.
    await this.state.store.bumpGenerations(writeScopes(req.method, req.path)).catch(() => this.state.events?.invalidationFailed(req.route));
  }

  /** Made once per request, from its key (every call of a request carries the same one). */
  #tagsOf(key: string): { store: string | undefined; local: string } {
    if (!this.#tags) {
      const { secret, kind } = this.state.store;
      const store = secret === undefined ? undefined : callerTag(secret, key);
      this.#tags = { store, local: kind === 'memory' && store !== undefined ? store : callerTag(this.state.localSecret, key) };
    }
    return this.#tags;
  }
}
