// Admission before execution (contract: Limits, overload): last, after the fan-out estimate and the
// upstream budget, a request asks src/limits/admission.ts for its estimated upstream calls. Refused,
// it ends here with HTTP 503, `Retry-After` and OVERLOADED, before any upstream call; admitted, it
// gives its weight back when its execution ends.
import { randomBytes } from 'node:crypto';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import { callerKey, callerTag } from '../caller.ts';
import { gatewayError } from '../graphql-errors.ts';
import type { Admission, Grant, Refusal } from './admission.ts';

interface AdmissionPluginOptions {
  /** The request's fan-out estimate, noted by the fan-out plugin (src/limits/fan-out-plugin.ts). */
  estimateOf(context: object): number | undefined;
  /** When the request's deadline ends, as a `performance.now()` time (its arrival + REQUEST_DEADLINE_MS). */
  deadlineAt(request: Request): number;
}

/** Requests without a key share one queue. */
const ANONYMOUS = 'anonymous';

export function admissionPlugin(admission: Admission, { estimateOf, deadlineAt }: AdmissionPluginOptions): Plugin {
  const callers = new WeakMap<Request, string>();
  const callerOf = (request: Request) => {
    let caller = callers.get(request);
    if (caller === undefined) {
      caller = callerQueue(request);
      callers.set(request, caller);
    }
    return caller;
  };
  return {
    // Overloaded past what even a one-call request could wait: refused before its body is read.
    onRequestParse({ request }) {
      const refused = admission.refusalBeforeReading(callerOf(request), deadlineAt(request) - performance.now());
      if (refused) throw overloaded(refused.retryAfterSeconds);
    },
    onExecute({ context, executeFn, setExecuteFn, setResultAndStopExecution }) {
      const { request } = context as YogaInitialContext;
      const outcome = admission.acquire(callerOf(request), estimateOf(context) ?? 1, deadlineAt(request) - performance.now());
      const apply = (settled: Grant | Refusal) => {
        if (settled.refused) {
          setResultAndStopExecution({ errors: [overloaded(settled.retryAfterSeconds)] });
          return;
        }
        setExecuteFn(async (executeArgs) => {
          try {
            return await executeFn(executeArgs);
          } finally {
            settled.release();
          }
        });
      };
      if (outcome instanceof Promise) return outcome.then(apply);
      apply(outcome);
    },
  };
}

/** The caller's queue: its key's tag under a secret of this process, so the key itself is kept no longer than the request. */
const QUEUE_SECRET = randomBytes(32).toString('base64url');
function callerQueue(request: Request): string {
  const key = callerKey(request);
  return key === null ? ANONYMOUS : callerTag(QUEUE_SECRET, key);
}

function overloaded(retryAfterSeconds: number) {
  return gatewayError(
    'OVERLOADED',
    `This gateway is at capacity. Retry after ${retryAfterSeconds} ${retryAfterSeconds === 1 ? 'second' : 'seconds'}.`,
    { retryAfter: retryAfterSeconds, http: { status: 503, headers: { 'Retry-After': String(retryAfterSeconds) } } },
  );
}
