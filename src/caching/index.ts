// The cache of upstream GET answers (CACHE=memory or CACHE=redis://…): entries per caller tag
// (src/caller.ts), valid while the generations of the scopes they depend on are unchanged
// (scopes.ts), looked up and written in batches (store-batch.ts); identical calls in flight are
// shared (coalescer.ts). request-cache.ts is what one request sees.
import { randomBytes } from 'node:crypto';
import { finalAsyncIterator, isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { SharedStore } from '../store/shared-store.ts';
import type { UpstreamTransport } from '../upstream/transport/transport.ts';
import { Coalescer } from './coalescer.ts';
import { type CacheEvents, type CacheState, RequestCache } from './request-cache.ts';
import { EntryWriter, LookupBatch } from './store-batch.ts';

export type { CacheEvents } from './request-cache.ts';

interface UpstreamCacheOptions {
  store: SharedStore;
  /** How long an answer is used (CACHE_TTL_MS). */
  ttlMs: number;
  events?: CacheEvents;
}

interface UpstreamCache {
  /** The transport one GraphQL request sees (its calls then go to `base`). */
  transportFor(request: Request, base: UpstreamTransport): UpstreamTransport;
  /** The request made its last call (a subscription poll ends so): its answers are written, and the promise resolves once they are. */
  end(request: Request): Promise<void>;
  /**
   * Ends each request as its execution ends, and holds its response until the answers it used are
   * stored (at most CACHE_TIMEOUT_MS), so the next request, on any instance, finds them.
   */
  plugin: Plugin;
}

export function createUpstreamCache(options: UpstreamCacheOptions): UpstreamCache {
  const state: CacheState = {
    store: options.store,
    lookups: new LookupBatch(options.store),
    writer: new EntryWriter(options.store, options.ttlMs),
    calls: new Coalescer(),
    localSecret: randomBytes(32).toString('base64url'),
    writeEpoch: 0,
    events: options.events,
  };
  const caches = new WeakMap<Request, RequestCache>();
  return {
    transportFor(request, base) {
      const cache = new RequestCache(base, state);
      caches.set(request, cache);
      return cache;
    },
    end: (request) => caches.get(request)?.end() ?? Promise.resolve(),
    plugin: {
      onExecute({ args }) {
        const request = (args.contextValue as { request?: Request }).request;
        const cache = request && caches.get(request);
        if (!cache) return;
        return {
          // An incremental answer (@defer/@stream) makes calls until its last payload: its answers are written then.
          onExecuteDone: ({ result, setResult }) => {
            if (isAsyncIterable(result)) setResult(finalAsyncIterator(result, () => void cache.end()));
            else return cache.end();
          },
        };
      },
      // An execution that threw ends without onExecuteDone: its answers are written all the same.
      onResponse({ request }) {
        void caches.get(request)?.end();
      },
    },
  };
}
