// W3C Trace Context at the gateway's two edges: an incoming `traceparent`/`tracestate` is parsed
// strictly by OpenTelemetry's own propagator (a malformed one is ignored, and nothing of it is sent
// on), and each upstream call's headers are written from a span context.
import { ROOT_CONTEXT, type SpanContext, TraceFlags, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { TraceHeaders } from '../upstream/transport/transport.ts';

const propagator = new W3CTraceContextPropagator();
const fromHeaders = {
  get: (headers: Headers, name: string) => headers.get(name) ?? undefined,
  keys: (headers: Headers) => [...headers.keys()],
};

/**
 * The caller's span context, or undefined when the request has no valid `traceparent` (two of them
 * arrive joined by a comma and are invalid too). Its `tracestate` keeps only well-formed members.
 */
export function incomingSpanContext(headers: Headers): SpanContext | undefined {
  if (!headers.has('traceparent')) return undefined;
  return trace.getSpanContext(propagator.extract(ROOT_CONTEXT, headers, fromHeaders));
}

/**
 * The headers that carry a span context upstream. Written here rather than by the propagator's
 * `inject`, which needs a context and a carrier per call and writes a flags byte above 0x0f with
 * three digits. Only the sampled flag is kept: W3C has flags a vendor does not know sent as zero.
 */
export function traceHeaders(context: SpanContext): TraceHeaders {
  const flags = context.traceFlags & TraceFlags.SAMPLED ? '01' : '00';
  const traceparent = `00-${context.traceId}-${context.spanId}-${flags}`;
  const tracestate = context.traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}
