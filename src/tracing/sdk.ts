// The OpenTelemetry SDK, when spans are exported: a tracer provider of the gateway's own (never
// registered as the global one, and no context manager), the configured sampler, a batch span
// processor with a bounded queue, and the OTLP/HTTP exporter of the configured encoding. The SDK
// reads the standard variables config.ts does not name from the environment itself
// (docs/tracing.md): the exporter's timeout, compression and certificates, resource attributes,
// the batch sizes.
import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { DEFAULTS, type SamplerName, type TracingSettings } from '../config.ts';
import type { Logger } from '../observability/logger.ts';
import { LoggedExporter } from './logged-exporter.ts';

interface Sdk {
  tracer: Tracer;
  /** Exports the spans still queued, then stops. */
  shutdown(): Promise<void>;
}

const SCOPE = 'org-graphql-gateway';

export function startSdk(settings: TracingSettings, logger: Logger): Sdk {
  const options = { url: settings.endpoint, headers: settings.headers };
  const exporter = settings.protocol === 'http/json' ? new JsonTraceExporter(options) : new ProtobufTraceExporter(options);
  // service.name: OTEL_SERVICE_NAME, else OTEL_RESOURCE_ATTRIBUTES' (the env detector reads both), else the gateway's name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': DEFAULTS.OTEL_SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }))
    .merge(settings.serviceName ? resourceFromAttributes({ 'service.name': settings.serviceName }) : null);
  // The batch processor drops spans past its queue (OTEL_BSP_MAX_QUEUE_SIZE, 2048) instead of growing.
  const provider = new BasicTracerProvider({
    resource,
    sampler: sampler(settings.sampler, settings.samplerRatio),
    spanProcessors: [new BatchSpanProcessor(new LoggedExporter(exporter, logger))],
  });
  return { tracer: provider.getTracer(SCOPE), shutdown: () => provider.shutdown() };
}

/** OpenTelemetry's standard samplers by their OTEL_TRACES_SAMPLER names. */
function sampler(name: SamplerName, ratio: number): Sampler {
  const root = name.endsWith('always_off')
    ? new AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler();
  // A parent-based sampler follows the caller's sampled flag, and decides with `root` only for a new trace.
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}
