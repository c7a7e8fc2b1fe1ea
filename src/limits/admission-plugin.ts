// Admission before execution (contract: Limits, overload): last, after the fan-out estimate and the
// upstream budget, a request asks src/limits/admission.ts for its estimated upstream calls. Refused,
// it ends here with HTTP 503, `Retry-After` and OVERLOADED, before any upstream call; admitted, it
// gives its weight back when its execution ends, or once it is stuck: an execution still running
// long after every upstream call it could make has ended is a defect (graphql-jit once never
// answered a mutation), and must not hold capacity, nor its caller, for ever.
import { randomBytes } from 'node:crypto';
import type { ExecutionResult } from 'graphql';
import { finalAsyncIterator, isAsyncIterable, type Plugin, type YogaInitialContext } from 'graphql-yoga';
import { callerKey, requestCallerTag } from '../caller.ts';
import { gatewayError, overloadedMessage, unexpectedError } from '../errors/graphql-errors.ts';
import type { Admission, Grant, Refusal } from './admission.ts';

interface AdmissionPluginOptions {
  /** The request's weight (its estimated upstream calls and its lookups without one), noted by the fan-out plugin (src/limits/fan-out-plugin.ts). */
  weightOf(context: object): number | undefined;
  /** When the request's deadline ends, as a `performance.now()` time (its arrival + REQUEST_DEADLINE_MS). */
  deadlineAt(request: Request): number;
  /** When an admitted request is expected to have ended, as a `performance.now()` time (its arrival + MAX_ADMITTED_LATENCY_MS, never past its deadline). */
  endBy(request: Request): number;
  /** How long past its deadline an execution may still run (a write is seen through for UPSTREAM_TIMEOUT_MS) before it counts as stuck. */
  stuckAfterMs: number;
  /** Told of a stuck execution: it is answered "Unexpected error." and its weight given back. */
  onStuck(request: Request): void;
}

/** Requests without a key share one queue. */
const ANONYMOUS = 'anonymous';

export function admissionPlugin(
  admission: Admission,
  { weightOf, deadlineAt, endBy, stuckAfterMs, onStuck }: AdmissionPluginOptions,
): Plugin {
  const callers = new WeakMap<Request, string>();
  const callerOf = (request: Request) => {
    let caller = callers.get(request);
    if (caller === undefined) {
      caller = callerQueue(request);
      callers.set(request, caller);
    }
    return caller;
  };
  const admitted = async <T>(request: Request, grant: Grant, execute: () => T | Promise<T>) => {
    let releasedLater = false;
    try {
      const result = await unlessStuck(execute(), deadlineAt(request) + stuckAfterMs, () => onStuck(request));
      // An incremental answer (@defer/@stream) holds its weight until its last payload, or its client leaves.
      if (!isAsyncIterable(result)) return result;
      releasedLater = true;
      return finalAsyncIterator(result, () => grant.release()) as unknown as typeof result;
    } finally {
      if (!releasedLater) grant.release();
    }
  };
  return {
    // Overloaded past what even a one-call request could wait: refused before its body is read.
    onRequestParse({ request }) {
      const refused = admission.refusalBeforeReading(callerOf(request), endBy(request) - performance.now());
      if (refused) throw overloaded(refused.retryAfterSeconds);
    },
    onExecute({ context, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const { request } = context as YogaInitialContext;
      const outcome = admission.acquire(callerOf(request), weightOf(context) ?? 1, endBy(request) - performance.now());
      const apply = (settled: Grant | Refusal) => {
        if (settled.refused) {
          setResultAndStopExecution({ errors: [overloaded(settled.retryAfterSeconds)] });
          return;
        }
        setExecuteFn((executeArgs) => admitted(request, settled, () => executeFn(executeArgs)));
      };
      if (outcome instanceof Promise) return outcome.then(apply);
      apply(outcome);
    },
  };
}

/** The execution's result, or "Unexpected error." once it is still running at `stuckAt` (a `performance.now()` time). */
function unlessStuck<T>(execution: T | Promise<T>, stuckAt: number, onStuck: () => void): Promise<T | ExecutionResult> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => {
        onStuck();
        resolve({ errors: [unexpectedError()] });
      },
      Math.min(Math.max(0, stuckAt - performance.now()), 2 ** 31 - 1),
    ).unref();
    Promise.resolve(execution).then(
      (result) => {
        clearTimeout(timer);
        resolve(result);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** The caller's queue: its key's tag under a secret of this process, so the key itself is kept no longer than the request. */
const QUEUE_SECRET = randomBytes(32).toString('base64url');
function callerQueue(request: Request): string {
  const key = callerKey(request);
  return key === null ? ANONYMOUS : requestCallerTag(QUEUE_SECRET, key);
}

function overloaded(retryAfterSeconds: number) {
  return gatewayError('OVERLOADED', overloadedMessage(retryAfterSeconds), {
    retryAfter: retryAfterSeconds,
    http: { status: 503, headers: { 'Retry-After': String(retryAfterSeconds) } },
  });
}
