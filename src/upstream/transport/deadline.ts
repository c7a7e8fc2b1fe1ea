// One upstream call's time budget: its own timeout or its request's deadline, whichever is first,
// and its caller going away. `expired` aborts at either, so whatever must end by the deadline
// listens to it. It is a controller fired by its own timer, not AbortSignal.timeout joined by
// AbortSignal.any: on Node 20 those missed deadlines under the chaos bench (requests hung past
// REQUEST_DEADLINE_MS until admission's stuck-request guard answered them).

export interface CallDeadline {
  /** A `performance.now()` time: the call's own timeout or the request's deadline, whichever is first. */
  readonly endsAt: number;
  /** The caller's signal (its client going away). */
  readonly signal: AbortSignal | undefined;
  /** Aborts when the deadline passes or the caller's signal aborts. */
  readonly expired: AbortSignal;
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

/**
 * Calls `expire` once, when the deadline passes or its caller leaves (at once if either already
 * happened); the function returned stops watching.
 */
export function onExpired(deadline: CallDeadline, expire: () => void): () => void {
  const { expired } = deadline;
  if (expired.aborted) {
    expire();
    return () => {};
  }
  const listener = () => expire();
  expired.addEventListener('abort', listener, { once: true });
  return () => expired.removeEventListener('abort', listener);
}

/** setTimeout's longest delay: a later deadline is as good as never. */
const MAX_TIMER_MS = 2 ** 31 - 1;

class Deadline implements CallDeadline {
  readonly expired: AbortSignal;

  constructor(
    readonly endsAt: number,
    readonly signal: AbortSignal | undefined,
    /** `endsAt` is the call's own timeout, not the caller's deadline. */
    private readonly endsAtOwnTimeout: boolean,
  ) {
    const controller = new AbortController();
    this.expired = controller.signal;
    const ms = Math.ceil(endsAt - performance.now());
    if (ms < MAX_TIMER_MS) {
      setTimeout(
        () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
        Math.max(0, ms),
      ).unref();
    }
    if (signal?.aborted) controller.abort(signal.reason);
    else signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  }

  remainingMs(): number {
    return Math.max(0, this.endsAt - performance.now());
  }

  abortKind(): 'timeout' | 'aborted' | undefined {
    const { signal } = this;
    if (signal?.aborted) return isTimeoutReason(signal.reason) ? 'timeout' : 'aborted';
    return this.timedOut() ? 'timeout' : undefined;
  }

  cutByOwnTimeout(): boolean {
    return this.endsAtOwnTimeout && !this.signal?.aborted && this.timedOut();
  }

  /** The timer may fire a fraction of a millisecond before `endsAt` by `performance.now()`. */
  private timedOut(): boolean {
    return this.expired.aborted || this.remainingMs() <= 0;
  }
}

function isTimeoutReason(reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'TimeoutError';
}
