// One upstream call's time budget: our timeout and the caller's signal as a single AbortSignal.
// A plain controller + timer (not AbortSignal.any/timeout) so both are released the moment the call ends.

export interface CallDeadline {
  readonly signal: AbortSignal;
  remainingMs(): number;
  /** Why `signal` aborted: our timeout or a caller deadline is `'timeout'`, any other caller abort `'aborted'`. */
  abortKind(): 'timeout' | 'aborted' | undefined;
  dispose(): void;
}

export function startDeadline(timeoutMs: number, callerSignal?: AbortSignal): CallDeadline {
  const controller = new AbortController();
  const endsAt = performance.now() + timeoutMs;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('Upstream call timed out.', 'TimeoutError'));
  }, timeoutMs);
  const onCallerAbort = (): void => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

  return {
    signal: controller.signal,
    remainingMs: () => Math.max(0, endsAt - performance.now()),
    abortKind() {
      if (timedOut) return 'timeout';
      if (!callerSignal?.aborted) return undefined;
      return isTimeoutReason(callerSignal.reason) ? 'timeout' : 'aborted';
    },
    dispose() {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}

function isTimeoutReason(reason: unknown): boolean {
  return reason instanceof Error && reason.name === 'TimeoutError';
}
