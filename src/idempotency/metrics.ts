// Metrics of idempotent mutations, in the gateway's registry. No label names a key or a tag.
import { Counter, type Registry } from 'prom-client';

/** What became of a mutation sent with an Idempotency-Key. */
export type IdempotencyOutcome = 'claimed' | 'replayed' | 'conflict' | 'key_reused' | 'malformed' | 'unavailable' | 'caller_full';

export interface IdempotencyEvents {
  request(outcome: IdempotencyOutcome): void;
  storeFailed(): void;
}

export function createIdempotencyMetrics(registry: Registry): IdempotencyEvents {
  const registers = [registry];
  const requests = new Counter({
    name: 'gateway_idempotent_requests_total',
    help:
      'Mutations sent with an Idempotency-Key, by outcome: claimed (it runs under the key), replayed (the remembered response), conflict (409), ' +
      'key_reused (422), malformed (400), unavailable (503: the store unreachable or full), caller_full (429: the caller key has IDEMPOTENCY_MAX_ENTRIES_PER_CALLER keys).',
    labelNames: ['outcome'],
    registers,
  });
  const failures = new Counter({
    name: 'gateway_idempotency_store_failures_total',
    help: 'Idempotency store operations that failed (claiming, remembering or releasing a key).',
    registers,
  });
  return {
    request: (outcome) => requests.inc({ outcome }),
    storeFailed: () => failures.inc(),
  };
}
