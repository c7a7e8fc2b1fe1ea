// Entry: config -> the bundled reference API unless UPSTREAM_URL is set -> gateway -> listen.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, likelyMisspellings, loadConfig } from './config/index.ts';
import { createGateway } from './gateway.ts';
import { EXAMPLE_QUERY } from './graphiql/example-query.ts';
import { createGatewayServer } from './http/server.ts';
import { gracefulShutdown } from './http/shutdown.ts';
import { warnIfUpstreamUnreachable } from './http/startup-probe.ts';
import { createLogger, type Logger } from './observability/logger.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  // Loaded only when it is the upstream: a gateway with UPSTREAM_URL never starts it.
  const embedded = config.upstreamUrl ? undefined : await startEmbeddedApi(config.referenceApiPort);
  const upstreamUrl = config.upstreamUrl ?? (embedded?.url as string);
  const logger = openLogger(config);
  for (const { variable, setting } of likelyMisspellings()) {
    logger.warn({ variable, setting }, `${variable} is not a setting, and is ignored: did you mean ${setting}?`);
  }
  const gateway = createGateway({ ...config, upstreamUrl, demoKey: embedded?.keys.demo, logger });
  const server = createGatewayServer(gateway.listener, config.server, gateway.refuseOverCapacity);
  gateway.serveWebSocket(server);
  // The kernel's queue of connections not yet accepted holds as many as the server would: Node's
  // default (511) overflows when a thousand clients connect at once, and each dropped SYN costs its
  // client a retry 1 to 3 s later (the system caps it at net.core.somaxconn).
  await listen(server, config.port, config.host, '', config.server.maxConnections + config.server.maxOverflowConnections);
  // METRICS_PORT: /metrics on a server of its own, kept until the process exits (a scrape during shutdown still answers).
  const metricsServer = gateway.metricsListener && config.metricsListen && createGatewayServer(gateway.metricsListener, config.server);
  if (metricsServer && config.metricsListen) await listen(metricsServer, config.metricsListen.port, config.metricsListen.host, 'METRICS_');
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

  if (metricsServer)
    console.log(`Metrics at http://${config.metricsListen?.host}:${(metricsServer.address() as AddressInfo).port}/metrics`);
  logger.info({ port, upstream: embedded ? 'embedded reference API' : upstreamUrl }, 'gateway listening');
  // Not awaited: the gateway serves while it probes.
  if (!embedded) void warnIfUpstreamUnreachable(upstreamUrl, config.readinessTimeoutMs, logger);
}

/** On loopback only: REFERENCE_API_PORT (any free port by default), a port in use told in one line. */
async function startEmbeddedApi(port: number) {
  const { startReferenceApi } = await import('./reference-api/index.ts');
  try {
    return await startReferenceApi({ port, host: '127.0.0.1' });
  } catch (error) {
    throw new ConfigError(
      `cannot start the reference API on 127.0.0.1, REFERENCE_API_PORT ${port}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  }
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
function listen(server: Server, port: number, host: string, settings: '' | 'METRICS_' = '', backlog?: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const refuse = (error: NodeJS.ErrnoException) =>
      reject(new ConfigError(`cannot listen on ${settings}HOST ${host}, ${settings}PORT ${port}: ${error.code ?? error.message}`));
    server.once('error', refuse);
    server.listen({ port, host, backlog }, () => {
      server.off('error', refuse);
      resolve();
    });
  });
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? `Configuration error: ${error.message}` : error);
  process.exit(1);
});
