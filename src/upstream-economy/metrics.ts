// Metrics of the upstream cache, the upstream budget and the shared store, in the gateway's registry.
// Labels are route templates only, bounded like every other label; nothing names a key or a tag.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { CacheEvents } from '../caching/index.ts';
import { boundedLabel, type LabelBounds } from '../observability/bounded-label.ts';
import type { WriteFeedOperation } from '../store/write-feed.ts';

interface CacheMetrics extends CacheEvents {
  budgetRefused(): void;
  storeFailed(): void;
  storeAvailable(up: boolean): void;
  feedFailed(operation: WriteFeedOperation): void;
}

export function createCacheMetrics(registry: Registry, bounds: LabelBounds): CacheMetrics {
  const registers = [registry];
  const routeLabel = boundedLabel(bounds);
  const byRoute = (name: string, help: string) => {
    const counter = new Counter({ name, help, labelNames: ['route'], registers });
    return (route: string) => counter.inc({ route: routeLabel(route) });
  };
  const refusals = new Counter({
    name: 'gateway_upstream_budget_refusals_total',
    help: 'Requests refused before execution because their estimated upstream calls exceeded what is left of their key’s UPSTREAM_BUDGET.',
    registers,
  });
  const failures = new Counter({
    name: 'gateway_cache_store_failures_total',
    help: 'Shared store operations that failed or timed out, and connection errors (the cache is bypassed meanwhile).',
    registers,
  });
  const up = new Gauge({
    name: 'gateway_cache_store_up',
    help: 'Whether the shared store is in use: 1 up, 0 down (the cache bypassed, the budget counted per instance).',
    registers,
  });
  const feedFailures = new Counter({
    name: 'gateway_write_feed_failures_total',
    help: 'Write feed operations that failed (CACHE=redis), by operation: publish or subscribe. Subscriptions on other instances then see writes at their next poll.',
    labelNames: ['operation'],
    registers,
  });
  return {
    hit: byRoute('gateway_cache_hits_total', 'Upstream GETs answered from the cache, by route template.'),
    miss: byRoute('gateway_cache_misses_total', 'Upstream GETs the cache had no valid answer for, by route template.'),
    coalesced: byRoute(
      'gateway_cache_coalesced_total',
      'Upstream GETs that waited for an identical call of another request instead of making their own.',
    ),
    stored: byRoute('gateway_cache_stores_total', 'Upstream answers written to the cache, by route template.'),
    invalidated: byRoute(
      'gateway_cache_invalidations_total',
      'Writes that made the cached answers their route can change stale, by the write’s route template.',
    ),
    invalidationFailed: byRoute(
      'gateway_cache_invalidations_failed_total',
      'Writes whose invalidation could not reach the shared store (set aside), by route template: other instances may serve the answers they changed until this instance reaches it again, at most CACHE_TTL_MS.',
    ),
    budgetRefused: () => refusals.inc(),
    storeFailed: () => failures.inc(),
    storeAvailable: (isUp) => up.set(isUp ? 1 : 0),
    feedFailed: (operation) => feedFailures.inc({ operation }),
  };
}
