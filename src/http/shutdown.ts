// Graceful shutdown: stop accepting connections, let requests in flight finish (closing each
// keep-alive connection as it goes idle), release the upstream pool and the embedded API and export
// the spans still queued, exit 0. If requests are still running after the grace period, exit 1 anyway.
import type { Server } from 'node:http';
import type { Logger } from '../observability/logger.ts';

interface ShutdownOptions {
  server: Server;
  /** How long requests in flight may take (SHUTDOWN_GRACE_MS). */
  graceMs: number;
  logger: Logger;
  /** Called first: readiness answers 503 and responses close their connections from now on. */
  beginShutdown(): void;
  /**
   * Run in order once no request is in flight (the gateway's upstream pool and spans, the embedded
   * API), each told how long it may take: what is left of the grace period, less EXIT_MARGIN_MS.
   */
  release: ((timeLeftMs: number) => Promise<unknown> | undefined)[];
  /** @default process.exit */
  exit?: (code: number) => void;
}

/** Kept back from a release step's time, so a step that uses all of it still ends before the forced exit. */
const EXIT_MARGIN_MS = 100;

/** Returns the signal handler; a second signal while shutting down is ignored. */
export function gracefulShutdown(options: ShutdownOptions): (signal: string) => Promise<void> {
  const { graceMs } = options;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let started = false;

  return async (signal) => {
    if (started) return;
    started = true;
    const { logger } = options;
    logger.info({ signal, graceMs }, 'shutting down: no new connections; finishing the requests in flight');
    options.beginShutdown();
    const deadline = performance.now() + graceMs - EXIT_MARGIN_MS;
    const force = setTimeout(() => {
      logger.error({ graceMs }, 'requests still in flight after the grace period: exiting anyway');
      exit(1);
    }, graceMs);
    force.unref();
    try {
      await drain(options.server);
      for (const release of options.release) await release(Math.max(0, deadline - performance.now()));
    } catch (error) {
      clearTimeout(force);
      logger.error({ err: error }, 'shutdown failed');
      exit(1);
      return;
    }
    clearTimeout(force);
    logger.info('shut down cleanly');
    exit(0);
  };
}

/** Resolves when every connection is closed: idle ones now, busy ones when their response is sent. */
function drain(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
