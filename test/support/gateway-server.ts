// The gateway behind its own HTTP server (src/http/server.ts), and clients on raw sockets
// (node:net), for tests of what the server does with a connection itself: half-sent requests that
// hold it, slow writers, what arrives before the server closes it. Everything is closed after each test.
import type { RequestListener, Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach } from 'vitest';
import type { ServerSettings } from '../../src/config/index.ts';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { createGatewayServer } from '../../src/http/server.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { DEFAULTS } from './defaults.ts';

export interface RawClient {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves with the time (`performance.now()`) the server closed the connection. */
  closed: Promise<number>;
}

/** Registers the cleanup; call at the top of a spec file. */
export function useGatewayServer() {
  let server: Server | undefined;
  let gateway: Gateway | undefined;
  let api: ReferenceApi | undefined;
  const sockets: Socket[] = [];

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await gateway?.close();
    await api?.close();
    server = gateway = api = undefined;
  });

  /** Serves `handler` behind the gateway's server with these settings; resolves with its port. */
  async function serve(handler: RequestListener, settings: Partial<ServerSettings>, refuseOverCapacity?: RequestListener) {
    const created = createGatewayServer(handler, { ...DEFAULTS.server, ...settings }, refuseOverCapacity);
    server = created;
    await new Promise<void>((resolve) => created.listen(0, '127.0.0.1', resolve));
    return (created.address() as AddressInfo).port;
  }

  return {
    serve,
    /** The gateway over a fresh reference API (`script` may set its answers), behind the server. */
    async serveGateway(settings: Partial<ServerSettings>, script?: (api: ReferenceApi) => void): Promise<number> {
      api = await startReferenceApi();
      script?.(api);
      gateway = createGateway({ upstreamUrl: api.url });
      return serve(gateway.listener, settings, gateway.refuseOverCapacity);
    },
    api: () => api as ReferenceApi,
    gateway: () => gateway as Gateway,
    /** Connects to `port` on loopback. */
    async rawClient(port: number): Promise<RawClient> {
      const socket = connect(port, '127.0.0.1');
      sockets.push(socket);
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString('latin1')));
      socket.on('error', () => undefined); // a reset from the server is what some tests expect
      const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now())));
      await new Promise((resolve) => socket.once('connect', resolve));
      return { socket, received: () => received, closed };
    },
    /** Connections the server holds now. */
    openConnections(): Promise<number> {
      return new Promise((resolve, reject) => server?.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    },
  };
}
