// The gateway's observability, wired once per gateway: the logger Yoga logs through, the request
// log line, Prometheus metrics at /metrics and the debug extension.
import type { Plugin, YogaLogger } from 'graphql-yoga';
import type { GuardedTransport } from '../rest/circuit-breaker.ts';
import type { UpstreamCall } from '../rest/request-transport.ts';
import { debugExtensionPlugin } from './debug-extension.ts';
import { defaultLogger, type Logger } from './logger.ts';
import { createMetrics, type GatewayMetrics } from './metrics.ts';
import { type OperationSummary, requestLogPlugin } from './request-log.ts';
import { isExpected, yogaLogger } from './yoga-logger.ts';

interface ObservabilityOptions {
  /** @default the process logger (LOG_LEVEL, LOG_FILE) */
  logger?: Logger;
  /** Serve `/metrics`. */
  metricsEnabled: boolean;
  /** Operation names are cut to this many characters in the request line and in metrics. */
  maxOperationNameLength: number;
  /** Distinct values per metric label; later new values count as `other`. */
  metricsMaxLabelValues: number;
  /** Honour `x-debug-upstream: 1`. */
  debugUpstreamCalls: boolean;
  transport: Pick<GuardedTransport, 'state' | 'onStateChange'>;
  requestIdOf(request: Request): string | undefined;
  /** Told of every finished GraphQL request, after the metrics (tracing ends the request's span). */
  onOperation?(summary: OperationSummary, request: Request): void;
}

interface Observability {
  logger: Logger;
  /** Yoga's `logging` option. */
  yogaLogger: YogaLogger;
  metrics: GatewayMetrics;
  /** For RequestLimits.onCall: every finished upstream call. */
  onUpstreamCall(call: UpstreamCall): void;
  plugins: Plugin[];
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
  const plugins: Plugin[] = [
    requestLogPlugin({
      logger,
      requestIdOf: options.requestIdOf,
      onSummary: (summary, request) => {
        metrics.observeOperation(summary);
        options.onOperation?.(summary, request);
      },
      isUnexpected: (error) => !isExpected(error),
      logged,
      maxOperationNameLength: options.maxOperationNameLength,
    }),
  ];
  if (options.metricsEnabled) plugins.push(metricsEndpointPlugin(metrics));
  if (options.debugUpstreamCalls) plugins.push(debugExtensionPlugin());

  return {
    logger,
    yogaLogger: yogaLogger(logger, logged),
    metrics,
    onUpstreamCall: (call) => metrics.observeUpstreamCall(call),
    plugins,
  };
}

function metricsEndpointPlugin(metrics: GatewayMetrics): Plugin {
  return {
    async onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== METRICS_PATH || !['GET', 'HEAD'].includes(request.method)) return;
      const { contentType, body } = await metrics.render();
      endResponse(new fetchAPI.Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } }));
    },
  };
}
