// The gateway's observability, wired once per gateway: the logger Yoga logs through, the request
// log line, Prometheus metrics at /metrics and the debug extension.
import type { RequestListener } from 'node:http';
import type { Plugin, YogaLogger } from 'graphql-yoga';
import type { GuardedTransport } from '../upstream/resilience/circuit-breaker.ts';
import type { UpstreamCall } from '../upstream/transport/request-transport.ts';
import { debugExtensionPlugin } from './debug-extension.ts';
import { defaultLogger, type Logger } from './logger.ts';
import { createMetrics, type GatewayMetrics } from './metrics.ts';
import { createRequestLog, type OperationSummary, type RequestLog } from './request-log.ts';
import { isExpected, yogaLogger } from './yoga-logger.ts';

interface ObservabilityOptions {
  /** @default the process logger (LOG_LEVEL, LOG_FILE) */
  logger?: Logger;
  /** Serve `/metrics`. */
  metricsEnabled: boolean;
  /** Where `/metrics` is served on its own (METRICS_PORT): then `metricsListener` serves it, and the gateway's port does not. */
  metricsListen: { port: number; host: string } | undefined;
  /** A scrape within this long of the last rendering gets that rendering again. */
  metricsCacheMs: number;
  /** Operation names are cut to this many characters in the request line and in metrics. */
  maxOperationNameLength: number;
  /** Distinct values per metric label; later new values count as `other`. */
  metricsMaxLabelValues: number;
  /** Honour `x-debug-upstream: 1`. */
  debugUpstreamCalls: boolean;
  transport: Pick<GuardedTransport, 'state' | 'onStateChange'>;
  requestIdOf(request: Request): string | undefined;
  /** Told of every finished GraphQL request, after the metrics (tracing ends the request's span). */
  onOperation?(summary: OperationSummary, request: object): void;
}

interface Observability {
  logger: Logger;
  /** Yoga's `logging` option. */
  yogaLogger: YogaLogger;
  metrics: GatewayMetrics;
  /** For RequestLimits.onCall: every finished upstream call. */
  onUpstreamCall(call: UpstreamCall): void;
  /** The summary line of each GraphQL request (its plugin is the first of `plugins`; WebSocket operations use its steps). */
  requestLog: RequestLog;
  plugins: Plugin[];
  /** With `metricsListen`: the listener of the server that serves `/metrics` alone. */
  metricsListener: RequestListener | undefined;
}

const METRICS_PATH = '/metrics';

export function createObservability(options: ObservabilityOptions): Observability {
  const logger = options.logger ?? defaultLogger();
  const metrics = createMetrics({ maxOperationNameLength: options.maxOperationNameLength, maxLabelValues: options.metricsMaxLabelValues });
  metrics.trackCircuit(options.transport);
  options.transport.onStateChange((state, route) =>
    logger[state === 'open' ? 'warn' : 'info']({ circuit: state, route }, `upstream circuit breaker ${state}`),
  );

  const logged = new WeakSet<Error>();
  const requestLog = createRequestLog({
    logger,
    requestIdOf: options.requestIdOf,
    onSummary: (summary, request) => {
      metrics.observeOperation(summary);
      options.onOperation?.(summary, request);
    },
    isUnexpected: (error) => !isExpected(error),
    logged,
    maxOperationNameLength: options.maxOperationNameLength,
  });
  const plugins: Plugin[] = [requestLog.plugin];
  const scrape = options.metricsEnabled && cachedRendering(metrics, options.metricsCacheMs);
  if (scrape && !options.metricsListen) plugins.push(metricsEndpointPlugin(scrape));
  if (options.debugUpstreamCalls) plugins.push(debugExtensionPlugin());

  return {
    logger,
    yogaLogger: yogaLogger(logger, logged),
    metrics,
    onUpstreamCall: (call) => metrics.observeUpstreamCall(call),
    requestLog,
    plugins,
    metricsListener: scrape && options.metricsListen ? metricsListener(scrape) : undefined,
  };
}

type Rendering = Awaited<ReturnType<GatewayMetrics['render']>>;

/**
 * The metrics rendered at most once per `cacheMs`: scrapes in between (and those during a
 * rendering) share it, so clients looping on /metrics cost one rendering per interval, not one each.
 */
function cachedRendering(metrics: GatewayMetrics, cacheMs: number): () => Promise<Rendering> {
  let last: { at: number; rendering: Promise<Rendering> } | undefined;
  return () => {
    const now = performance.now();
    if (!last || now - last.at >= cacheMs) {
      const rendering = metrics.render();
      last = { at: now, rendering };
      // A failed rendering is not kept.
      rendering.catch(() => {
        if (last?.rendering === rendering) last = undefined;
      });
    }
    return last.rendering;
  };
}

const METRICS_HEADERS = { 'cache-control': 'no-store' };

function metricsEndpointPlugin(scrape: () => Promise<Rendering>): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== METRICS_PATH || !['GET', 'HEAD'].includes(request.method)) return;
      const { contentType, body } = await scrape();
      endResponse(new fetchAPI.Response(body, { headers: { ...METRICS_HEADERS, 'content-type': contentType } }));
    },
  };
}

/** The server of `/metrics` alone (METRICS_PORT): every other path is 404. */
function metricsListener(scrape: () => Promise<Rendering>): RequestListener {
  return (req, res) => {
    const path = req.url?.split('?')[0];
    if (path !== METRICS_PATH || !['GET', 'HEAD'].includes(req.method ?? '')) {
      res.writeHead(404).end();
      return;
    }
    scrape().then(
      ({ contentType, body }) => {
        res.writeHead(200, { ...METRICS_HEADERS, 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => res.writeHead(500).end(),
    );
  };
}
