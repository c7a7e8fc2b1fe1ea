// One upstream call's time budget: its own timeout, cut short by the GraphQL request's deadline. No
// timer or AbortController of its own, per call or per request (a dashboard makes dozens of calls,
// and those cost more than the calls' own bookkeeping): the remaining budget becomes undici's
// headers/body timeouts for each attempt, and the caller's signal (its client going away) is handed
// to undici as it is.

export interface CallDeadline {
  /** The caller's signal, passed to undici unchanged. */
  readonly signal: AbortSignal | undefined;
  remainingMs(): number;
  /** Why the call was cut short: our budget or a caller deadline is `'timeout'`, any other caller abort `'aborted'`. */
  abortKind(): 'timeout' | 'aborted' | undefined;
}

/** `deadlineAt`: a `performance.now()` time the caller's own budget ends. */
export function startDeadline(timeoutMs: number, callerSignal?: AbortSignal, deadlineAt = Infinity): CallDeadline {
  const endsAt = Math.min(performance.now() + timeoutMs, deadlineAt);
  const remainingMs = () => Math.max(0, endsAt - performance.now());
  return {
    signal: callerSignal,
    remainingMs,
    abortKind() {
      if (callerSignal?.aborted) return isTimeoutReason(callerSignal.reason) ? 'timeout' : 'aborted';
      return remainingMs() <= 0 ? 'timeout' : undefined;
    },
  };
}

function isTimeoutReason(reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'TimeoutError';
}
