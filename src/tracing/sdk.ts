// The OpenTelemetry SDK, when spans are exported: a tracer provider of the gateway's own (never
// registered as the global one, and no context manager), the configured sampler, a batch span
// processor with a bounded queue, and the OTLP/HTTP exporter of the configured encoding. The SDK
// reads the standard variables config.ts does not name from the environment itself
// (docs/tracing.md): the exporter's timeout, compression and certificates, resource attributes,
// the batch sizes.
import { createRequire } from 'node:module';
import type { Tracer } from '@opentelemetry/api';
import type { Sampler, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { SamplerName, TracingSettings } from '../config/index.ts';
import type { Logger } from '../observability/logger.ts';
import { LoggedExporter } from './logged-exporter.ts';

interface Sdk {
  tracer: Tracer;
  /** Exports the spans still queued, then stops. */
  shutdown(): Promise<void>;
}

/** The tracer's scope, and the spans' `service.name` when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one. */
const GATEWAY_NAME = 'org-graphql-gateway';

// Loaded when spans are exported, not at start: the SDK, its resources and its two exporters are
// ~70 ms of a gateway's start and ~2 MB of its heap (docs/performance.md#memory-at-rest), and a
// gateway without OTEL_EXPORTER_OTLP_ENDPOINT uses none of them. `require`, as createGateway is
// synchronous; each package's `main` is the CommonJS build an `import` would load too.
const load = createRequire(import.meta.url);
const sdkTraceBase = () => load('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base');
const resources = () => load('@opentelemetry/resources') as typeof import('@opentelemetry/resources');
const otlpJson = () => load('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http');
const otlpProtobuf = () => load('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto');

export function startSdk(settings: TracingSettings, logger: Logger): Sdk {
  const { BasicTracerProvider, BatchSpanProcessor } = sdkTraceBase();
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = resources();
  const exporter = exporterFor(settings);
  // service.name: OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES' (the env detector reads both), else the gateway's name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': GATEWAY_NAME }))
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(settings.serviceName ? resourceFromAttributes({ 'service.name': settings.serviceName }) : null);
  // The batch processor drops spans past its queue (OTEL_BSP_MAX_QUEUE_SIZE, 2048) instead of growing.
  const provider = new BasicTracerProvider({
    resource,
    sampler: sampler(settings.sampler, settings.samplerRatio),
    spanProcessors: [new BatchSpanProcessor(new LoggedExporter(exporter, logger))],
  });
  return { tracer: provider.getTracer(GATEWAY_NAME), shutdown: () => provider.shutdown() };
}

/** The OTLP/HTTP exporter of the configured encoding. */
function exporterFor({ protocol, endpoint, headers }: TracingSettings): SpanExporter {
  const { OTLPTraceExporter } = protocol === 'http/json' ? otlpJson() : otlpProtobuf();
  return new OTLPTraceExporter({ url: endpoint, headers });
}

/** OpenTelemetry's standard samplers by their OTEL_TRACES_SAMPLER names. */
function sampler(name: SamplerName, ratio: number): Sampler {
  const { AlwaysOffSampler, AlwaysOnSampler, ParentBasedSampler, TraceIdRatioBasedSampler } = sdkTraceBase();
  const root = name.endsWith('always_off')
    ? new AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler();
  // A parent-based sampler follows the caller's sampled flag, and decides with `root` only for a new trace.
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}
