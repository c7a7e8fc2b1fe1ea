// One subscriber's stream: an async iterator over the events of the poll it shares. It keeps only
// the latest event not yet read (a slow reader skips to the current state, it never piles up), and
// `return()` (the client went away) leaves the poll at once, even while a `next()` is waiting.
import type { PollEvent } from './watched.ts';

export class Subscriber<T> implements AsyncIterableIterator<PollEvent<T>> {
  #unread: PollEvent<T> | undefined;
  #waiting: ((result: IteratorResult<PollEvent<T>>) => void) | undefined;
  #ending = false;
  #left = false;
  #settleFirst!: (event: PollEvent<T> | undefined) => void;
  /** The first event pushed, read or not (undefined when the stream ended before any): what admits the stream (hub.ts). */
  readonly firstEvent = new Promise<PollEvent<T> | undefined>((resolve) => {
    this.#settleFirst = resolve;
  });

  /** `onLeave` runs once, when the stream ends for any reason. */
  constructor(private readonly onLeave: () => void) {}

  push(event: PollEvent<T>): void {
    if (this.#ending) return;
    this.#settleFirst(event);
    if (this.#waiting) {
      const deliver = this.#waiting;
      this.#waiting = undefined;
      deliver({ done: false, value: event });
    } else {
      this.#unread = event;
    }
  }

  /** Ends the stream once its unread event (if any) is read. */
  end(): void {
    this.#ending = true;
    if (this.#unread === undefined) this.#leave();
  }

  next(): Promise<IteratorResult<PollEvent<T>>> {
    const event = this.#unread;
    if (event !== undefined) {
      this.#unread = undefined;
      if (this.#ending) this.#leave();
      return Promise.resolve({ done: false, value: event });
    }
    if (this.#left) return Promise.resolve({ done: true, value: undefined });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<PollEvent<T>>> {
    this.#ending = true;
    this.#unread = undefined;
    this.#leave();
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  #leave(): void {
    if (this.#left) return;
    this.#left = true;
    this.#settleFirst(undefined);
    this.#waiting?.({ done: true, value: undefined });
    this.#waiting = undefined;
    this.onLeave();
  }
}
