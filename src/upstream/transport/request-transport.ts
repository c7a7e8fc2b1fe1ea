// The transport one GraphQL request sees: it caps the request's upstream calls (the runtime back-up
// of the fan-out estimate) and how many run at once, and records each call for logs, metrics, the
// debug extension and its trace span.

import { CallBudgetExceededError, mayHaveReachedUpstream, UpstreamError } from '../upstream-error.ts';
import type { HttpMethod, TraceHeaders, UpstreamRequest, UpstreamResponse, UpstreamTransport } from './transport.ts';

export interface UpstreamCall {
  method: string;
  /** Route template, e.g. `/api/organizations/:organization_id/batch_exports/`. */
  route: string;
  /** The HTTP status, when the upstream answered. */
  status?: number;
  durationMs: number;
  /** Times sent: more than 1 when a GET was retried. */
  attempts: number;
  /** `ok`, or the failure kind (`http`, `timeout`, `network`, ...). */
  outcome: string;
  /** Whether it may have reached the upstream (what the upstream budget counts). */
  sent: boolean;
  /** Served without an upstream call of this request: from the cache, or by another request's identical call. */
  source?: 'cache' | 'coalesced';
}

/** One call's span (src/tracing): the headers that carry its context upstream, ended with the call's record. */
export interface CallTrace {
  readonly headers: TraceHeaders;
  end(call: UpstreamCall): void;
}

/** Starts the span of each upstream call of one request, under that request's span. */
export interface CallTracer {
  /** `route` is the route template, never a concrete path. */
  startCall(method: HttpMethod, route: string): CallTrace;
}

interface RequestTransportOptions {
  /** Calls one GraphQL request may make. */
  maxCalls: number;
  /** Calls of one GraphQL request in flight at once. */
  concurrency: number;
  /** Told of every finished call (metrics). */
  onCall?: (call: UpstreamCall) => void;
}

interface RequestTransport extends UpstreamTransport {
  readonly calls: UpstreamCall[];
  /** Calls started and not finished yet. */
  inFlight(): number;
  /** Whether a write (any call but a GET) may have reached the upstream and changed something, or is still on its way. */
  mayHaveWritten(): boolean;
}

/** The upstream refused the key (401) or its permission (403) before doing anything: such a write changed nothing. */
const REFUSED_CALLER = new Set([401, 403]);
const mayHaveChanged = (call: UpstreamCall) => call.method !== 'GET' && call.sent && !REFUSED_CALLER.has(call.status as number);

/** `tracer`: the request's trace, when it has one (an incoming `traceparent`, or spans exported). */
export function createRequestTransport(base: UpstreamTransport, options: RequestTransportOptions, tracer?: CallTracer): RequestTransport {
  const calls: UpstreamCall[] = [];
  let started = 0;
  let inFlight = 0;
  let writesInFlight = 0;
  // A FIFO semaphore of `concurrency` slots, inline rather than p-limit: a call that finds a free
  // slot starts at once, without p-limit's queue node, promise and microtask per call.
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    // The slot passes straight to the longest waiting call, if any.
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };

  const record = (
    req: UpstreamRequest,
    startedAt: number,
    trace: CallTrace | undefined,
    status: number | undefined,
    attempts: number,
    outcome: string,
    sent: boolean,
    source: UpstreamCall['source'],
  ) => {
    const call: UpstreamCall = {
      method: req.method,
      route: req.route,
      durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
      attempts,
      outcome,
      sent,
      status,
      source,
    };
    calls.push(call);
    options.onCall?.(call);
    trace?.end(call);
  };

  const ended = (req: UpstreamRequest) => {
    inFlight -= 1;
    if (req.method !== 'GET') writesInFlight -= 1;
    release();
  };

  /** `.then` rather than an async function: a call in flight holds no suspended frame here. */
  const run = <T>(req: UpstreamRequest): Promise<UpstreamResponse<T>> => {
    const startedAt = performance.now();
    let trace: CallTrace | undefined;
    let sent: Promise<UpstreamResponse<T>>;
    try {
      trace = tracer?.startCall(req.method, req.route);
      // Object.assign, not `{ ...req, trace }`: V8 gives a spread then added to a hidden class of its own, one per call.
      sent = base.request<T>(trace ? Object.assign({}, req, { trace: trace.headers }) : req);
    } catch (error) {
      sent = Promise.reject(error); // as from an async function
    }
    return sent.then(
      (response) => {
        try {
          record(req, startedAt, trace, response.status, response.attempts, 'ok', true, response.source);
          return response;
        } finally {
          ended(req);
        }
      },
      (error: unknown) => {
        try {
          const failure = error instanceof UpstreamError ? error : undefined;
          record(
            req,
            startedAt,
            trace,
            failure?.status,
            failure?.attempts ?? 1,
            failure?.kind ?? 'error',
            mayHaveReachedUpstream(error),
            failure?.source,
          );
          throw error;
        } finally {
          ended(req);
        }
      },
    );
  };

  // No getter: an object literal with one is made in V8's dictionary mode, and this one is made per
  // request and read on every call.
  return {
    calls,
    inFlight: () => inFlight,
    mayHaveWritten: () => writesInFlight > 0 || calls.some(mayHaveChanged),
    request<T>(req: UpstreamRequest): Promise<UpstreamResponse<T>> {
      started += 1;
      if (started > options.maxCalls) return Promise.reject(new CallBudgetExceededError(options.maxCalls));
      inFlight += 1;
      if (req.method !== 'GET') writesInFlight += 1;
      if (running < options.concurrency) {
        running += 1;
        return run<T>(req);
      }
      return new Promise<void>((resolve) => waiting.push(resolve)).then(() => run<T>(req));
    },
    close: () => Promise.resolve(),
  };
}
