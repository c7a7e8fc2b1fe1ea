// Entry: config -> the bundled reference API unless UPSTREAM_URL is set -> gateway -> listen.
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from './config.ts';
import { EXAMPLE_QUERY } from './example-query.ts';
import { createGateway } from './gateway.ts';
import { createGatewayServer } from './http/server.ts';
import { gracefulShutdown } from './http/shutdown.ts';
import { createLogger } from './observability/logger.ts';
import { startReferenceApi } from './reference-api/index.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const embedded = config.upstreamUrl ? undefined : await startReferenceApi({ port: 0, host: '127.0.0.1' });
  const upstreamUrl = config.upstreamUrl ?? (embedded?.url as string);
  const logger = createLogger(config);
  const gateway = createGateway({ ...config, upstreamUrl, demoKey: embedded?.keys.demo, logger });
  const server = createGatewayServer(gateway.yoga, config.server);
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
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

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? `Configuration error: ${error.message}` : error);
  process.exit(1);
});
