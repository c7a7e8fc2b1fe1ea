// Identical GETs of one caller in flight at once, from any requests of this instance, share one
// upstream call. The call belongs to none of them: it carries no request's signal or deadline, so no
// waiter's disconnect or deadline cancels it for the others (it runs to UPSTREAM_TIMEOUT_MS, and its
// answer is stored even when every waiter has left), and each waiter stops waiting at its own. A
// request already abandoned starts no call. A failure reaches every waiter and is not cached.
import { type CallDeadline, onExpired, startDeadline } from '../upstream/transport/deadline.ts';
import type { UpstreamRequest } from '../upstream/transport/transport.ts';
import { UpstreamError } from '../upstream/upstream-error.ts';

export class Coalescer<T> {
  #inFlight = new Map<string, Promise<T>>();

  /** The call in flight for `key`, or a new one that `start` makes; `leader`: this caller started it. */
  join(key: string, start: () => Promise<T>): { call: Promise<T>; leader: boolean } {
    const existing = this.#inFlight.get(key);
    if (existing) return { call: existing, leader: false };
    const call = start();
    this.#inFlight.set(key, call);
    const forget = () => this.#inFlight.delete(key);
    call.then(forget, forget);
    return { call, leader: true };
  }
}

/** When the request stops waiting: its caller leaving, or its deadline (undefined: never). */
export function requestDeadline(req: UpstreamRequest): CallDeadline | undefined {
  if (!req.signal && req.deadlineAt === undefined) return undefined;
  return startDeadline(Number.POSITIVE_INFINITY, req.signal, req.deadlineAt);
}

/**
 * The error to throw instead of starting or joining a call, once the request was abandoned: nothing
 * is sent, as the transport sends nothing for a call queued past its deadline or after its caller left.
 */
export function abandoned(req: UpstreamRequest, deadline: CallDeadline | undefined): UpstreamError | undefined {
  const stopped = deadline?.abortKind();
  return stopped && gaveUp(req, stopped, { sent: false });
}

/**
 * The shared call's outcome for one waiter, or, once its caller left or its deadline passed, an
 * UpstreamError of that kind (`sent` for the leader: its call went out and goes on). The request
 * was checked not to be abandoned just before it joined.
 */
export function waitFor<T>(call: Promise<T>, req: UpstreamRequest, deadline: CallDeadline | undefined, leader: boolean): Promise<T> {
  if (!deadline) return call;
  return new Promise<T>((resolve, reject) => {
    const unwatch = onExpired(deadline, () =>
      reject(gaveUp(req, deadline.abortKind() ?? 'timeout', leader ? { sent: true } : { sent: false, source: 'coalesced' })),
    );
    call.then(
      (value) => {
        unwatch();
        resolve(value);
      },
      (error: unknown) => {
        unwatch();
        reject(error);
      },
    );
  });
}

/** The request stopped waiting (`sent`: its own call went out and goes on; `coalesced`: it waited for another's). */
function gaveUp(
  req: UpstreamRequest,
  kind: NonNullable<ReturnType<CallDeadline['abortKind']>>,
  how: { sent: boolean; source?: 'coalesced' },
): UpstreamError {
  return new UpstreamError({ kind, method: req.method, route: req.route, ...how });
}
