// One shared poll: a watched record, for one caller key, on this instance. It polls while it has
// subscribers, hands each poll's outcome to all of them, and stops (timer cleared, poll in flight
// cancelled) when the last one leaves or the record is gone.
import type { GraphQLError } from 'graphql';
import { gatewayError, toGraphQLError } from '../errors/graphql-errors.ts';
import type { Logger } from '../observability/logger.ts';
import type { Subscriber } from './subscriber.ts';
import type { PollEvent, PollRunner, WatchedResource } from './watched.ts';

/** Errors the next poll cannot fix: they end the stream. */
const FINAL_CODES = new Set(['NOT_FOUND', 'UNAUTHENTICATED', 'FORBIDDEN']);
/** Without a `retryAfter`, consecutive 429s double the wait, up to this many times. */
const MAX_BACKOFF_DOUBLINGS = 6;
/**
 * A write's poll starts at least this long after the poll before it: the writes in between share
 * one, so a burst of writes costs a poll one upstream call a second, and each is pushed within it.
 */
export const WRITE_POLL_GAP_MS = 1000;

interface PollerOptions {
  pollMs: number;
  run: PollRunner;
  logger: Logger;
  /** Told of each poll whose outcome reached the subscribers: `ok`, or the error event's code. */
  onPolled?(outcome: string): void;
  /** Called once, when the poll stops for good. */
  onStop(): void;
}

export class Poller<T> {
  readonly #subscribers = new Set<Subscriber<T>>();
  readonly #stopped = new AbortController();
  #last: PollEvent<T> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #polling = false;
  /** A write asked for a poll while one was running: poll again when it ends. */
  #again = false;
  /** After a 429, no poll before this time (performance.now()). */
  #notBefore = 0;
  /** When the last poll started, and when the next is due (performance.now()). */
  #polledAt = Number.NEGATIVE_INFINITY;
  #dueAt = Number.POSITIVE_INFINITY;
  #rateLimitedInARow = 0;

  constructor(
    readonly resource: WatchedResource<T>,
    private readonly key: string,
    private readonly options: PollerOptions,
  ) {}

  /** A new subscriber gets the current state at once when there is one; the first starts the poll. */
  add(subscriber: Subscriber<T>): void {
    this.#subscribers.add(subscriber);
    if (this.#last) subscriber.push(this.#last);
    else if (this.#subscribers.size === 1) this.#schedule(0);
  }

  remove(subscriber: Subscriber<T>): void {
    if (this.#subscribers.delete(subscriber) && this.#subscribers.size === 0) this.stop();
  }

  /** A write may have changed the record: polls as soon as `#pollSoon` allows. */
  written(): void {
    if (!this.#stopped.signal.aborted) this.#pollSoon();
  }

  /** Ends every subscriber's stream and stops polling. */
  stop(): void {
    if (this.#stopped.signal.aborted) return;
    this.#stopped.abort();
    clearTimeout(this.#timer);
    for (const subscriber of this.#subscribers) subscriber.end();
    this.#subscribers.clear();
    this.options.onStop();
  }

  /**
   * Polls once the poll running now ends, WRITE_POLL_GAP_MS after the last one started and not
   * before a 429 allows; sooner only, never later than the poll already due.
   */
  #pollSoon(): void {
    if (this.#polling) {
      this.#again = true;
      return;
    }
    const at = Math.max(this.#polledAt + WRITE_POLL_GAP_MS, this.#notBefore, performance.now());
    if (at < this.#dueAt) this.#schedule(at - performance.now());
  }

  #schedule(delayMs: number): void {
    clearTimeout(this.#timer);
    this.#dueAt = performance.now() + delayMs;
    this.#timer = setTimeout(() => void this.#poll(), delayMs);
  }

  async #poll(): Promise<void> {
    this.#polling = true;
    this.#polledAt = performance.now();
    this.#dueAt = Number.POSITIVE_INFINITY;
    let event: PollEvent<T>;
    try {
      const record = await this.options.run(this.key, this.#stopped.signal, this.resource.fetch);
      event = record === null ? { error: gone(), final: true } : { record };
    } catch (error) {
      const converted = toGraphQLError(error);
      // A bug, not an upstream failure: the subscribers see "Unexpected error.", the log gets the error (never the key).
      if (converted.extensions.code === 'INTERNAL_SERVER_ERROR') {
        this.options.logger.error(
          { err: error, watched: this.resource.key },
          'unexpected error in a subscription poll (its subscribers saw "Unexpected error.")',
        );
      }
      event = { error: converted, final: FINAL_CODES.has(String(converted.extensions.code)) };
    }
    this.#polling = false;
    if (this.#stopped.signal.aborted) return;
    this.options.onPolled?.('error' in event ? String(event.error.extensions.code) : 'ok');
    this.#last = event;
    for (const subscriber of this.#subscribers) subscriber.push(event);
    if ('error' in event && event.final) {
      this.stop();
      return;
    }
    const delayMs = this.#nextDelay(event);
    // After a 429 nothing polls sooner, not even a write, however short its wait.
    this.#notBefore = this.#rateLimitedInARow > 0 ? performance.now() + delayMs : 0;
    this.#schedule(delayMs);
    if (this.#again) {
      this.#again = false;
      this.#pollSoon();
    }
  }

  /** The poll interval, or after a 429 at least its `retryAfter` (doubling the interval when it has none). */
  #nextDelay(event: PollEvent<T>): number {
    const error: GraphQLError | undefined = 'error' in event ? event.error : undefined;
    if (error?.extensions.code !== 'RATE_LIMITED') {
      this.#rateLimitedInARow = 0;
      return this.options.pollMs;
    }
    this.#rateLimitedInARow += 1;
    const retryAfter = error.extensions.retryAfter;
    if (typeof retryAfter === 'number') return Math.max(this.options.pollMs, retryAfter * 1000);
    return this.options.pollMs * 2 ** Math.min(this.#rateLimitedInARow, MAX_BACKOFF_DOUBLINGS);
  }
}

function gone(): GraphQLError {
  return gatewayError('NOT_FOUND', 'The watched record no longer exists (the upstream answered 404): the subscription ends.');
}
