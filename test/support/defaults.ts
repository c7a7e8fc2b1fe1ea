// The declared defaults (src/config/settings.ts), for tests that build one module alone: a test
// names only what it changes, and every other value is the one the gateway would run with.
import { resolveConfig } from '../../src/config/index.ts';
import { transportSettings } from '../../src/upstream/transport/transport.ts';

export const DEFAULTS = resolveConfig({ cache: { store: 'memory' } });

/** The cache's defaults (CACHE_* settings). */
export const CACHE_DEFAULTS = DEFAULTS.cache as NonNullable<typeof DEFAULTS.cache>;

/** The upstream transport's (UPSTREAM_* and MAX_UPSTREAM_* settings). */
export const TRANSPORT_DEFAULTS = transportSettings(DEFAULTS);

/** The memory store's: with an answer cache (CACHE=memory) and the idempotency bound. */
export const MEMORY_STORE_DEFAULTS = { answers: CACHE_DEFAULTS, idempotencyMaxEntries: DEFAULTS.idempotency.maxEntries };
