// A gateway behind a real HTTP server on a loopback port, for tests that go over the wire.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Gateway } from '../../src/gateway.ts';
import { type Harness, startHarness } from './harness.ts';

export interface ServedGateway {
  /** e.g. http://127.0.0.1:41234/graphql */
  url: string;
  close(): Promise<void>;
}

export async function serveOverHttp(gateway: Gateway): Promise<ServedGateway> {
  const server = createServer(gateway.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type HttpHarness = Harness & { url: string };

/** startHarness, with its gateway also served over HTTP at `url`; close() closes both. */
export async function startHttpHarness(...options: Parameters<typeof startHarness>): Promise<HttpHarness> {
  const harness = await startHarness(...options);
  const served = await serveOverHttp(harness.gateway);
  return {
    ...harness,
    url: served.url,
    close: async () => {
      await served.close();
      await harness.close();
    },
  };
}
