// The transport one GraphQL request sees: it caps the request's upstream calls (the runtime back-up
// of the fan-out estimate) and how many run at once, and records each call for logs, metrics, the
// debug extension and its trace span.
import pLimit from 'p-limit';
import { routeTemplate } from './paths.ts';
import type { HttpMethod, TraceHeaders, UpstreamRequest, UpstreamResponse, UpstreamTransport } from './transport.ts';
import { CallBudgetExceededError, UpstreamError } from './upstream-error.ts';

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
}

/** `tracer`: the request's trace, when it has one (an incoming `traceparent`, or spans exported). */
export function createRequestTransport(base: UpstreamTransport, options: RequestTransportOptions, tracer?: CallTracer): RequestTransport {
  const limit = pLimit(options.concurrency);
  const calls: UpstreamCall[] = [];
  let started = 0;

  const record = (req: UpstreamRequest, startedAt: number, result: Partial<UpstreamCall>, trace: CallTrace | undefined) => {
    const call: UpstreamCall = {
      method: req.method,
      route: req.route ?? req.path,
      durationMs: Math.round((performance.now() - startedAt) * 10) / 10,
      attempts: 1,
      outcome: 'ok',
      ...result,
    };
    calls.push(call);
    options.onCall?.(call);
    trace?.end(call);
  };

  return {
    calls,
    request<T>(req: UpstreamRequest): Promise<UpstreamResponse<T>> {
      started += 1;
      if (started > options.maxCalls) return Promise.reject(new CallBudgetExceededError(options.maxCalls));
      return limit(async () => {
        const startedAt = performance.now();
        const trace = tracer?.startCall(req.method, req.route ?? routeTemplate(req.path));
        try {
          const response = await base.request<T>(trace ? { ...req, trace: trace.headers } : req);
          record(req, startedAt, { status: response.status, attempts: response.attempts }, trace);
          return response;
        } catch (error) {
          const failure = error instanceof UpstreamError ? error : undefined;
          record(req, startedAt, { status: failure?.status, attempts: failure?.attempts ?? 1, outcome: failure?.kind ?? 'error' }, trace);
          throw error;
        }
      });
    },
    close: () => Promise.resolve(),
  };
}
