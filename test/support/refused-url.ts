// A loopback address that refuses connections: an upstream (or Redis) that is down.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback port with nothing listening on it. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
