// One upstream call's time budget, and the one clock that enforces every budget in flight. No timer
// or AbortController per call (a dashboard makes dozens of calls, and a controller with its
// listeners costs more than a call's own bookkeeping): each attempt joins a list that a single
// interval sweeps every DEADLINE_TICK_MS, ending those past their time or whose caller left.

/** How often the clock sweeps: an attempt ends at most this long after its limit (plus event-loop delay). */
export const DEADLINE_TICK_MS = 20;

export interface CallDeadline {
  /** A `performance.now()` time: the call's own timeout or the request's deadline, whichever is first. */
  readonly endsAt: number;
  /** The caller's signal (its client going away). */
  readonly signal: AbortSignal | undefined;
  remainingMs(): number;
  /** Why the call was cut short: our budget or a caller deadline is `'timeout'`, any other caller abort `'aborted'`. */
  abortKind(): 'timeout' | 'aborted' | undefined;
  /** Cut by the call's own `timeoutMs`: not by the caller's deadline, which ends later, nor by the caller leaving. */
  cutByOwnTimeout(): boolean;
}

/** `deadlineAt`: a `performance.now()` time the caller's own budget ends. */
export function startDeadline(timeoutMs: number, callerSignal?: AbortSignal, deadlineAt = Number.POSITIVE_INFINITY): CallDeadline {
  const ownEndsAt = performance.now() + timeoutMs;
  return new Deadline(Math.min(ownEndsAt, deadlineAt), callerSignal, ownEndsAt <= deadlineAt);
}

/** A deadline at `endsAt` (a `performance.now()` time) that no caller can cut short. */
export function deadlineAt(endsAt: number): CallDeadline {
  return new Deadline(endsAt, undefined, true);
}

/** A class rather than an object of closures: every upstream call starts one. */
class Deadline implements CallDeadline {
  constructor(
    readonly endsAt: number,
    readonly signal: AbortSignal | undefined,
    /** `endsAt` is the call's own timeout, not the caller's deadline. */
    private readonly endsAtOwnTimeout: boolean,
  ) {}

  remainingMs(): number {
    return Math.max(0, this.endsAt - performance.now());
  }

  abortKind(): 'timeout' | 'aborted' | undefined {
    const { signal } = this;
    if (signal?.aborted) return isTimeoutReason(signal.reason) ? 'timeout' : 'aborted';
    return this.remainingMs() <= 0 ? 'timeout' : undefined;
  }

  cutByOwnTimeout(): boolean {
    return this.endsAtOwnTimeout && !this.signal?.aborted && this.remainingMs() <= 0;
  }
}

function isTimeoutReason(reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'TimeoutError';
}

/** Something in flight that must end by its deadline. */
export interface Watched {
  readonly deadline: CallDeadline;
  /** Called once, by the clock, when the deadline passed or the caller left; must stop watching. */
  expire(): void;
}

/** An item's place on the clock's list, from `watchDeadline` until `unwatchDeadline`. */
export class DeadlineWatch {
  constructor(
    readonly item: Watched,
    /** Its index in `watched`; -1 once unwatched. */
    public index: number,
  ) {}
}

/**
 * Everything watched, in no order: an array with swap-removal, not a Set. V8 rebuilds a Set's table
 * every few hundred adds and deletes, and keeps each replaced table, with every item it held, linked
 * to the next one (for iterators). Once such a table was promoted, every young collection took its
 * links as live until the next full collection: attempts long ended stayed alive, with their
 * requests' bodies and results, and each scavenge copied 10x what the floor's does
 * (docs/performance.md). An array's slot is overwritten when its item leaves.
 */
const watched: DeadlineWatch[] = [];
let sweeper: NodeJS.Timeout | undefined;

export function watchDeadline(item: Watched): DeadlineWatch {
  const watch = new DeadlineWatch(item, watched.length);
  watched.push(watch);
  // Unref'd: an attempt in flight keeps the process alive through its socket, not through the clock.
  sweeper ??= setInterval(sweep, DEADLINE_TICK_MS).unref();
  return watch;
}

/** Idempotent. */
export function unwatchDeadline(watch: DeadlineWatch): void {
  const { index } = watch;
  if (index < 0) return;
  watch.index = -1;
  const last = watched.pop() as DeadlineWatch;
  if (last === watch) return;
  watched[index] = last;
  last.index = index;
}

function sweep(): void {
  if (watched.length === 0) {
    // Stopped lazily, so back-to-back calls do not start and stop an interval each.
    clearInterval(sweeper);
    sweeper = undefined;
    return;
  }
  const now = performance.now();
  // Backwards: an item that leaves is replaced by the last one, which was already swept. Should an
  // expiry end other items too, the list may be shorter than the index by then.
  for (let i = watched.length - 1; i >= 0; i--) {
    const item = watched[i]?.item;
    if (item && (now >= item.deadline.endsAt || item.deadline.signal?.aborted)) item.expire();
  }
}
