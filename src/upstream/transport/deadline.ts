// One upstream call's time budget: its own timeout or its request's deadline, whichever is first,
// and its caller going away. Whatever must end by the deadline watches it (`onExpired`). The timer
// and the caller listener exist only while someone watches: a call that ends in time leaves nothing
// behind (a timer per call held for UPSTREAM_TIMEOUT_MS after the call kept ~24,000 timers,
// controllers and closures alive under load, and fired them all for nobody). A plain timer, not
// AbortSignal.timeout joined by AbortSignal.any: on Node 20 those missed deadlines under the chaos
// bench (requests hung past REQUEST_DEADLINE_MS until admission's stuck-request guard answered them).

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

/**
 * Calls `expire` once, when the deadline passes or its caller leaves (at once if either already
 * happened); the function returned stops watching.
 */
export function onExpired(deadline: CallDeadline, expire: () => void): () => void {
  return (deadline as Deadline).watch(expire);
}

/** setTimeout's longest delay: a later deadline is as good as never. */
const MAX_TIMER_MS = 2 ** 31 - 1;

class Deadline implements CallDeadline {
  private readonly watchers = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  /** The deadline passed, or the caller left, while someone watched. */
  private fired = false;

  constructor(
    readonly endsAt: number,
    readonly signal: AbortSignal | undefined,
    /** `endsAt` is the call's own timeout, not the caller's deadline. */
    private readonly endsAtOwnTimeout: boolean,
  ) {}

  watch(expire: () => void): () => void {
    if (this.fired || this.signal?.aborted || this.remainingMs() <= 0) {
      this.fired = true;
      expire();
      return () => {};
    }
    if (this.watchers.size === 0) this.arm();
    this.watchers.add(expire);
    return () => {
      if (this.watchers.delete(expire) && this.watchers.size === 0) this.disarm();
    };
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
    return (this.fired && !this.signal?.aborted) || this.remainingMs() <= 0;
  }

  private arm(): void {
    const ms = Math.ceil(this.endsAt - performance.now());
    if (ms < MAX_TIMER_MS) this.timer = setTimeout(this.fire, Math.max(0, ms)).unref();
    this.signal?.addEventListener('abort', this.fire, { once: true });
  }

  private disarm(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.signal?.removeEventListener('abort', this.fire);
  }

  private readonly fire = (): void => {
    this.fired = true;
    this.disarm();
    const watchers = [...this.watchers];
    this.watchers.clear();
    for (const expire of watchers) expire();
  };
}

function isTimeoutReason(reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'TimeoutError';
}
