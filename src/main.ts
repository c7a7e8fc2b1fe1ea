// Entry: config -> the bundled reference API unless UPSTREAM_URL is set -> gateway -> listen.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from './config.ts';
import { EXAMPLE_QUERY } from './example-query.ts';
import { createGateway } from './gateway.ts';
import { createGatewayServer } from './http/server.ts';
import { gracefulShutdown } from './http/shutdown.ts';
import { createLogger, type Logger } from './observability/logger.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  // Loaded only when it is the upstream: a gateway with UPSTREAM_URL never starts it.
  const embedded = config.upstreamUrl ? undefined : await startEmbeddedApi();
  const upstreamUrl = config.upstreamUrl ?? (embedded?.url as string);
  const logger = openLogger(config);
  const gateway = createGateway({ ...config, upstreamUrl, demoKey: embedded?.keys.demo, logger });
  const server = createGatewayServer(gateway.listener, config.server);
  gateway.serveWebSocket(server);
  await listen(server, config.port, config.host);
  // Before the banner: whoever waits for "ready" may send SIGTERM at once.
  const shutdown = gracefulShutdown({
    server,
    graceMs: config.shutdownGraceMs,
    logger,
    beginShutdown: gateway.beginShutdown,
    release: [(timeLeftMs) => gateway.close(timeLeftMs), () => embedded?.close()],
  });
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);

  const { port } = server.address() as AddressInfo;
  const displayHost = ['0.0.0.0', '::'].includes(config.host) ? 'localhost' : config.host;
  const url = `http://${displayHost}:${port}/graphql`;
  console.log(`GraphQL gateway ready at ${url}`);
  if (embedded) {
    console.log(`Upstream: the bundled reference API with demo data at ${embedded.url} (set UPSTREAM_URL for a real one)`);
    console.log(`Send this header: Authorization: Bearer ${embedded.keys.demo}`);
    console.log(`Open ${url} in a browser (the header is already filled in), or run this query:\n\n${EXAMPLE_QUERY}`);
  } else {
    console.log(`Upstream: ${upstreamUrl}`);
  }

  logger.info({ port, upstream: embedded ? 'embedded reference API' : upstreamUrl }, 'gateway listening');
}

async function startEmbeddedApi() {
  const { startReferenceApi } = await import('./reference-api/index.ts');
  return startReferenceApi({ port: 0, host: '127.0.0.1' });
}

/** An unwritable LOG_FILE is a configuration error, told as one rather than as a stack trace. */
function openLogger(config: ReturnType<typeof loadConfig>): Logger {
  try {
    return createLogger(config);
  } catch (error) {
    throw new ConfigError(`LOG_FILE (${config.logFile}) cannot be opened for appending: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
}

/** A HOST this machine has no address for, or a PORT in use, is told in one line (the server would throw it unhandled). */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const refuse = (error: NodeJS.ErrnoException) =>
      reject(new ConfigError(`cannot listen on HOST ${host}, PORT ${port}: ${error.code ?? error.message}`));
    server.once('error', refuse);
    server.listen(port, host, () => {
      server.off('error', refuse);
      resolve();
    });
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? `Configuration error: ${error.message}` : error);
  process.exit(1);
});
