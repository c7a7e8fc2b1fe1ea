// The spans of one GraphQL request when spans are exported: a SERVER span for the request and,
// under it, a CLIENT span per upstream call. Parents are passed explicitly, never through a context
// manager (its async hooks would cost every promise of every request): the request's trace reaches
// the REST client through the GraphQL context, like the request id.
import { type Attributes, type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { GRAPHQL_ENDPOINT } from '../config/index.ts';
import type { OperationSummary } from '../observability/request-log.ts';
import { truncate } from '../truncate.ts';
import type { CallTrace, CallTracer, UpstreamCall } from '../upstream/transport/request-transport.ts';
import type { HttpMethod } from '../upstream/transport/transport.ts';
import { traceHeaders } from './trace-context.ts';

/** One GraphQL request's trace: the calls' spans, and the request's own span ended with its summary. */
export interface RequestTrace extends CallTracer {
  end(summary: OperationSummary): void;
}

/** The request span's name, followed by the operation's type and name (bounded by MAX_OPERATION_NAME_LENGTH) once known. */
const REQUEST_SPAN = 'graphql.operation';
/** Error codes are the gateway's own, but a span keeps a bounded list of them all the same. */
const MAX_ERROR_CODES = 10;
const MAX_ERROR_CODE_LENGTH = 64;

export class ExportedRequestTrace implements RequestTrace {
  #span: Span | undefined;
  #context: Context | undefined;

  constructor(
    private readonly tracer: Tracer,
    /** `server.address` and `server.port` of the upstream, on every call span. */
    private readonly upstream: Attributes,
    /** The caller's trace (a remote parent), or the root context: a new trace. */
    private readonly parent: Context,
    private readonly method: string,
    /** The request's arrival, as a `performance.now()` time: the span starts there. */
    private readonly receivedAt: number,
  ) {}

  startCall(method: HttpMethod, route: string): CallTrace {
    const attributes = { 'http.request.method': method, 'url.template': route, ...this.upstream };
    return new CallSpan(this.tracer.startSpan(`${method} ${route}`, { kind: SpanKind.CLIENT, attributes }, this.#requestContext()));
  }

  end(summary: OperationSummary): void {
    this.#requestContext();
    const span = this.#span as Span;
    const { operation, operationType } = summary;
    if (operationType) span.updateName(`${REQUEST_SPAN} ${operationType}${operation ? ` ${operation}` : ''}`);
    span.setAttributes({
      'http.response.status_code': summary.status,
      'graphql.operation.type': operationType ?? undefined,
      'graphql.operation.name': operation ?? undefined,
      'gateway.request_id': summary.requestId,
      'gateway.upstream.calls': summary.upstreamCalls,
      'gateway.upstream.retries': summary.upstreamRetries,
    });
    if (summary.outcome === 'error') {
      const codes = summary.errorCodes.slice(0, MAX_ERROR_CODES).map((code) => truncate(code, MAX_ERROR_CODE_LENGTH));
      span.setAttributes({ 'error.type': codes[0] ?? `HTTP_${summary.status}`, 'gateway.graphql.error_codes': codes });
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }

  /** The request's span is made when first needed, so a request that never reaches GraphQL has none. */
  #requestContext(): Context {
    if (!this.#context) {
      // The only route with a request span: summaries and upstream calls come from it alone.
      const attributes = { 'http.request.method': this.method, 'http.route': GRAPHQL_ENDPOINT };
      this.#span = this.tracer.startSpan(REQUEST_SPAN, { kind: SpanKind.SERVER, attributes, startTime: this.receivedAt }, this.parent);
      this.#context = trace.setSpan(ROOT_CONTEXT, this.#span);
    }
    return this.#context;
  }
}

/** An upstream call's span: its retries are attempts counted here, never spans of their own. */
class CallSpan implements CallTrace {
  readonly headers;

  constructor(private readonly span: Span) {
    this.headers = traceHeaders(span.spanContext());
  }

  end(call: UpstreamCall): void {
    const { span } = this;
    // The one place a call's record becomes span attributes.
    span.setAttributes({
      // `cache`: answered from the cache; `coalesced`: by another request's identical call; else `upstream`.
      'gateway.upstream.source': call.source ?? 'upstream',
      'http.response.status_code': call.status,
      'gateway.upstream.attempts': call.attempts,
      'http.request.resend_count': call.attempts > 1 ? call.attempts - 1 : undefined,
    });
    if (call.outcome !== 'ok') {
      // The status code for an HTTP error (OpenTelemetry's rule), else the kind of failure (`timeout`, `network`, ...).
      span.setAttribute('error.type', call.outcome === 'http' && call.status ? String(call.status) : call.outcome);
      span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  }
}
