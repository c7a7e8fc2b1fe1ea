// One upstream call's time budget, and the one clock that enforces every budget in flight. No timer
// or AbortController per call (a dashboard makes dozens of calls, and a controller with its
// listeners costs more than a call's own bookkeeping): each attempt joins a set that a single
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
}

/** `deadlineAt`: a `performance.now()` time the caller's own budget ends. */
export function startDeadline(timeoutMs: number, callerSignal?: AbortSignal, deadlineAt = Number.POSITIVE_INFINITY): CallDeadline {
  return new Deadline(Math.min(performance.now() + timeoutMs, deadlineAt), callerSignal);
}

/** A class rather than an object of closures: every upstream call starts one. */
class Deadline implements CallDeadline {
  constructor(
    readonly endsAt: number,
    readonly signal: AbortSignal | undefined,
  ) {}

  remainingMs(): number {
    return Math.max(0, this.endsAt - performance.now());
  }

  abortKind(): 'timeout' | 'aborted' | undefined {
    const { signal } = this;
    if (signal?.aborted) return isTimeoutReason(signal.reason) ? 'timeout' : 'aborted';
    return this.remainingMs() <= 0 ? 'timeout' : undefined;
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

const watched = new Set<Watched>();
let sweeper: NodeJS.Timeout | undefined;

export function watchDeadline(item: Watched): void {
  watched.add(item);
  // Unref'd: an attempt in flight keeps the process alive through its socket, not through the clock.
  sweeper ??= setInterval(sweep, DEADLINE_TICK_MS).unref();
}

export function unwatchDeadline(item: Watched): void {
  watched.delete(item);
}

function sweep(): void {
  if (watched.size === 0) {
    // Stopped lazily, so back-to-back calls do not start and stop an interval each.
    clearInterval(sweeper);
    sweeper = undefined;
    return;
  }
  const now = performance.now();
  for (const item of watched) {
    if (now >= item.deadline.endsAt || item.deadline.signal?.aborted) item.expire();
  }
}
