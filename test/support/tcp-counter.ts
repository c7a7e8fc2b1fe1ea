// A TCP relay on a loopback port that counts what its clients send: each chunk read from a client
// is one write of its (ioredis sends a command, or a whole pipeline, in one write), so the count
// is an upper bound of the round trips a client started (chunks that arrive together may be read
// as one, never one write as two while it is this small).
import { type AddressInfo, createConnection, createServer, type Socket } from 'node:net';

export interface TcpCounter {
  /** The relay's loopback port. */
  port: number;
  /** Chunks read from clients since the last `reset()`. */
  readonly writes: number;
  reset(): void;
  close(): Promise<void>;
}

export async function startTcpCounter(targetPort: number): Promise<TcpCounter> {
  let writes = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined); // the other side is destroyed with it below
    }
    client.on('data', () => (writes += 1));
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get writes() {
      return writes;
    },
    reset() {
      writes = 0;
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
