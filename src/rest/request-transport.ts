// The transport one GraphQL request sees: it caps the request's upstream calls (the runtime back-up
// of the fan-out estimate) and how many run at once, and records each call for logs, metrics, the
// debug extension and its trace span.
import pLimit from 'p-limit';
import { routeTemplate } from './paths.ts';
import type { HttpMethod, TraceHeaders, UpstreamRequest, UpstreamResponse, UpstreamTransport } from './transport.ts';
import { CallBudgetExceededError, mayHaveReachedUpstream, UpstreamError } from './upstream-error.ts';

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
  readonly inFlight: number;
  /** Whether a write (any call but a GET) may have reached the upstream, or is still on its way. */
  mayHaveWritten(): boolean;
}

/** `tracer`: the request's trace, when it has one (an incoming `traceparent`, or spans exported). */
export function createRequestTransport(base: UpstreamTransport, options: RequestTransportOptions, tracer?: CallTracer): RequestTransport {
  const limit = pLimit(options.concurrency);
  const calls: UpstreamCall[] = [];
  let started = 0;
  let inFlight = 0;
  let writesInFlight = 0;

  const record = (req: UpstreamRequest, startedAt: number, result: Partial<UpstreamCall>, trace: CallTrace | undefined) => {
    const call: UpstreamCall = {
      method: req.method,
      route: req.route ?? req.path,
      durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
      attempts: 1,
      outcome: 'ok',
      sent: true,
      ...result,
    };
    calls.push(call);
    options.onCall?.(call);
    trace?.end(call);
  };

  return {
    calls,
    get inFlight() {
      return inFlight;
    },
    mayHaveWritten: () => writesInFlight > 0 || calls.some((call) => call.method !== 'GET' && call.sent),
    request<T>(req: UpstreamRequest): Promise<UpstreamResponse<T>> {
      started += 1;
      if (started > options.maxCalls) return Promise.reject(new CallBudgetExceededError(options.maxCalls));
      inFlight += 1;
      const write = req.method !== 'GET';
      if (write) writesInFlight += 1;
      return limit(async () => {
        const startedAt = performance.now();
        const trace = tracer?.startCall(req.method, req.route ?? routeTemplate(req.path));
        try {
          const response = await base.request<T>(trace ? { ...req, trace: trace.headers } : req);
          record(req, startedAt, { status: response.status, attempts: response.attempts, source: response.source }, trace);
          return response;
        } catch (error) {
          const failure = error instanceof UpstreamError ? error : undefined;
          record(
            req,
            startedAt,
            {
              status: failure?.status,
              attempts: failure?.attempts ?? 1,
              outcome: failure?.kind ?? 'error',
              sent: mayHaveReachedUpstream(error),
              source: failure?.source,
            },
            trace,
          );
          throw error;
        } finally {
          inFlight -= 1;
          if (write) writesInFlight -= 1;
        }
      });
    },
    close: () => Promise.resolve(),
  };
}
