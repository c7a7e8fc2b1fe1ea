// What makes upstream calls count across requests, wired once per gateway from its settings: the
// stores (src/store), the cache of GET answers with coalescing (src/caching, CACHE) and the
// per-key upstream budget (src/budget, UPSTREAM_BUDGET), with their metrics. With neither setting,
// nothing is built and requests take the plain path.
import type { Plugin } from 'graphql-yoga';
import type { Registry } from 'prom-client';
import { upstreamBudgetPlugin } from '../budget/budget-plugin.ts';
import { createUpstreamBudget } from '../budget/upstream-budget.ts';
import { createUpstreamCache } from '../caching/index.ts';
import type { CacheSettings } from '../config/index.ts';
import type { BudgetWindow } from '../config/upstream-budget.ts';
import type { GatewayContext } from '../context.ts';
import type { LabelBounds } from '../observability/bounded-label.ts';
import type { Logger } from '../observability/logger.ts';
import { openStores } from '../store/index.ts';
import type { SharedQueries, SharedStore, WriteFeed } from '../store/shared-store.ts';
import type { UpstreamTransport } from '../upstream/transport/transport.ts';
import { createCacheMetrics } from './metrics.ts';

interface UpstreamEconomyOptions {
  cache?: CacheSettings;
  /** Idempotency records a memory store keeps at most (IDEMPOTENCY_MAX_ENTRIES). */
  idempotencyMaxEntries: number;
  upstreamBudget?: readonly BudgetWindow[];
  /** The fan-out estimate of a request's operation, by its context: what the budget reserves. */
  estimateOf(context: object): number | undefined;
  logger: Logger;
  registry: Registry;
  labelBounds: LabelBounds;
}

interface UpstreamEconomy {
  /** The transport one request's calls go through (the cache's when it is on). */
  transportFor(request: Request, base: UpstreamTransport): UpstreamTransport;
  /** A request outside Yoga (a subscription poll) made its last call: the cache writes its answers. */
  ended(request: Request): void;
  /** Runs a subscription poll under the key's budget (UPSTREAM_BUDGET), when there is one. */
  poll?<T>(key: string, context: GatewayContext, run: () => Promise<T>): Promise<T>;
  /** Reserves a batch's summed estimate under the key's budget (UPSTREAM_BUDGET), when there is one; throws its refusal. */
  reserveBatch?(request: Request, estimate: number): Promise<void>;
  /** After the fan-out plugin. */
  plugins: Plugin[];
  /** The shared store (Redis, or this instance's memory): idempotent mutations are remembered there too. */
  store: SharedStore;
  /** Persisted query texts shared by every instance: with CACHE=redis only. */
  persistedQueries?: SharedQueries;
  /** Writes every instance hears of, for their subscriptions: with CACHE=redis only. */
  writeFeed?: WriteFeed;
  /** For /readiness: the shared store, when there is one (src/http's CacheStoreReport: neither part may import the other). */
  storeReport(): { store: 'memory' | 'redis'; reachable: boolean } | undefined;
  close(): Promise<void>;
}

export function createUpstreamEconomy(options: UpstreamEconomyOptions): UpstreamEconomy | undefined {
  if (!options.cache && !options.upstreamBudget) return undefined;
  const metrics = createCacheMetrics(options.registry, options.labelBounds);
  const stores = openStores(
    options.cache,
    options.logger,
    { onFailure: metrics.storeFailed, onChange: metrics.storeAvailable, onFeedFailure: metrics.feedFailed },
    options.idempotencyMaxEntries,
  );
  metrics.storeAvailable(stores.shared.available);
  const cache = options.cache && createUpstreamCache({ store: stores.shared, ttlMs: options.cache.ttlMs, events: metrics });
  const budget =
    options.upstreamBudget &&
    upstreamBudgetPlugin(
      createUpstreamBudget({ windows: options.upstreamBudget, store: stores.shared, fallback: stores.local }),
      options.estimateOf,
      metrics.budgetRefused,
    );
  return {
    transportFor: (request, base) => (cache ? cache.transportFor(request, base) : base),
    ended: (request) => void cache?.end(request),
    poll: budget ? budget.poll : undefined,
    reserveBatch: budget ? budget.reserveBatch : undefined,
    plugins: [...(budget ? [budget.plugin] : []), ...(cache ? [cache.plugin] : [])],
    store: stores.shared,
    persistedQueries: stores.queries,
    writeFeed: stores.writes,
    storeReport: () => (options.cache ? { store: stores.shared.kind, reachable: stores.shared.available } : undefined),
    close: () => stores.close(),
  };
}
