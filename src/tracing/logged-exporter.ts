// The exporter's failures in the gateway's log. The SDK reports a failed export only to its global
// diagnostic logger, silent by default, so a collector that is down would go unnoticed: this wrapper
// logs a warning with the spans lost, at most once a minute however many batches fail.
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { Logger } from '../observability/logger.ts';

/** Time between two warnings about failed exports; the spans lost in between are counted in the next. */
const FAILURE_LOG_INTERVAL_MS = 60_000;

export class LoggedExporter implements SpanExporter {
  #lostSinceLog = 0;
  #loggedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly logger: Logger,
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.exporter.export(spans, (result) => {
      if (result.code !== ExportResultCode.SUCCESS) this.#lost(spans.length, result.error);
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }

  #lost(spans: number, error: Error | undefined): void {
    this.#lostSinceLog += spans;
    const now = performance.now();
    if (now - this.#loggedAt < FAILURE_LOG_INTERVAL_MS) return;
    // Only the message: the exporter's error may carry the collector's answer, never worth a log line.
    this.logger.warn({ spansLost: this.#lostSinceLog, reason: error?.message }, 'tracing: spans could not be exported and were dropped');
    this.#lostSinceLog = 0;
    this.#loggedAt = now;
  }
}
