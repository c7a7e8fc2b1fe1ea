// Tracing, wired once per gateway. With an OTLP endpoint, every GraphQL request gets a span and each
// of its upstream calls a child span, exported by the SDK. Without one nothing is recorded, and an
// incoming `traceparent` is still continued: each upstream call carries the caller's context as it
// came (re-written from its parsed form), as OpenTelemetry's API does without an SDK.
import { type Attributes, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import type { TracingSettings } from '../config/index.ts';
import type { Logger } from '../observability/logger.ts';
import type { CallTrace } from '../upstream/transport/request-transport.ts';
import type { TraceHeaders } from '../upstream/transport/transport.ts';
import { ExportedRequestTrace, type RequestTrace } from './request-trace.ts';
import { startSdk } from './sdk.ts';
import { incomingSpanContext, traceHeaders } from './trace-context.ts';

export type { RequestTrace } from './request-trace.ts';

interface Tracing {
  /** At a request's arrival: its trace, or undefined when there is none (no valid `traceparent`, nothing exported). */
  startRequest(request: Request, receivedAt: number): RequestTrace | undefined;
  /** Exports the spans still queued; gives up (and says so) after `withinMs`. */
  shutdown(withinMs?: number): Promise<void>;
}

interface TracingOptions {
  /** Unset: nothing is exported. */
  settings: TracingSettings | undefined;
  /** The upstream's host and port name every call span (`server.address`, `server.port`). */
  upstreamUrl: string;
  logger: Logger;
}

export function createTracing({ settings, upstreamUrl, logger }: TracingOptions): Tracing {
  if (!settings) return propagationOnly;
  const sdk = startSdk(settings, logger);
  const upstream = upstreamAttributes(upstreamUrl);
  return {
    startRequest(request, receivedAt) {
      const caller = incomingSpanContext(request.headers);
      const parent = caller ? trace.setSpanContext(ROOT_CONTEXT, caller) : ROOT_CONTEXT;
      return new ExportedRequestTrace(sdk.tracer, upstream, parent, request.method, receivedAt);
    },
    async shutdown(withinMs = Number.POSITIVE_INFINITY) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<boolean>((resolve) => {
        if (Number.isFinite(withinMs)) timer = setTimeout(() => resolve(true), withinMs);
      });
      // A failed export is already a warning (LoggedExporter): shutting down goes on without the spans.
      const exported = sdk.shutdown().then(
        () => false,
        () => false,
      );
      const gaveUp = await Promise.race([exported, timedOut]);
      clearTimeout(timer);
      if (gaveUp) logger.warn({ withinMs }, 'tracing: spans not exported in time at shutdown were dropped');
    },
  };
}

/** No exporter: the caller's context, unchanged, is what every upstream call carries. */
const propagationOnly: Tracing = {
  startRequest(request) {
    const caller = incomingSpanContext(request.headers);
    return caller && new PropagatedTrace(traceHeaders(caller));
  },
  shutdown: () => Promise.resolve(),
};

class PropagatedTrace implements RequestTrace {
  private readonly call: CallTrace;

  constructor(headers: TraceHeaders) {
    this.call = { headers, end: () => {} };
  }

  startCall(): CallTrace {
    return this.call;
  }

  end(): void {}
}

/** Only the host and port: the operator's own setting, which config.ts accepts without credentials, query or fragment. */
function upstreamAttributes(upstreamUrl: string): Attributes {
  const url = new URL(upstreamUrl);
  return { 'server.address': url.hostname, 'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80) };
}
