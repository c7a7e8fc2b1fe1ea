// Metrics of subscriptions, in the gateway's registry: the streams and polls open on this instance,
// what the polls got, the streams refused, and the writes that re-polled. No label names a key.
import { Counter, Gauge, type Registry } from 'prom-client';
import { boundedLabel, type LabelBounds } from '../observability/bounded-label.ts';

/** Where a write that may have changed a watched record was made (`other_instance`: heard on the write feed). */
export type WriteOrigin = 'this_instance' | 'other_instance';

export interface SubscriptionEvents {
  /** A stream refused at a limit, named by its setting. */
  refused(limit: 'MAX_SUBSCRIPTIONS_PER_KEY' | 'MAX_SUBSCRIPTIONS'): void;
  /** A poll ended: `ok`, or the code of the error event its subscribers got. */
  polled(outcome: string): void;
  written(origin: WriteOrigin): void;
}

interface SubscriptionMetrics extends SubscriptionEvents {
  /** Reads the hub's open streams and polls at every scrape. */
  track(stats: () => { streams: number; polls: number }): void;
}

export function createSubscriptionMetrics(registry: Registry, bounds: LabelBounds): SubscriptionMetrics {
  const registers = [registry];
  const outcomeLabel = boundedLabel(bounds);
  const refusals = new Counter({
    name: 'gateway_subscription_refusals_total',
    help: 'Subscriptions refused with QUERY_TOO_COMPLEX, by the limit they met: MAX_SUBSCRIPTIONS_PER_KEY or MAX_SUBSCRIPTIONS.',
    labelNames: ['limit'],
    registers,
  });
  const polls = new Counter({
    name: 'gateway_subscription_polls_total',
    help: 'Subscription polls (one per key and watched record, shared by its subscribers), by outcome: ok, or the error code its subscribers got (RATE_LIMITED, NOT_FOUND, …).',
    labelNames: ['outcome'],
    registers,
  });
  const writes = new Counter({
    name: 'gateway_subscription_writes_total',
    help: 'Writes that may have changed a record (each re-polls the watched records it touches), by origin: this_instance, or other_instance (heard on the write feed, CACHE=redis).',
    labelNames: ['origin'],
    registers,
  });
  return {
    refused: (limit) => refusals.inc({ limit }),
    polled: (outcome) => polls.inc({ outcome: outcomeLabel(outcome) }),
    written: (origin) => writes.inc({ origin }),
    track(stats) {
      new Gauge({
        name: 'gateway_subscription_streams',
        help: 'Subscription streams open on this instance.',
        registers,
        collect() {
          this.set(stats().streams);
        },
      });
      new Gauge({
        name: 'gateway_subscription_polls',
        help: 'Polls running on this instance: one per key and watched record, however many streams share it.',
        registers,
        collect() {
          this.set(stats().polls);
        },
      });
    },
  };
}
