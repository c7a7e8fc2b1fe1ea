// A Redis of a spec's own: Debian's redis-server (`.ci/run` installs it) on a free loopback port,
// with nothing persisted, so no test depends on a Redis already running or leaves data behind. It
// can be stopped and started again on the same port (an outage), and read directly (ioredis).
import { type ChildProcess, spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { refusedUrl } from './refused-url.ts';

/** `REDIS_SERVER` names another binary. */
const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

export interface RedisServer {
  /** `redis://127.0.0.1:<port>/0` */
  url: string;
  port: number;
  /** Stops the server (SIGKILL: an outage, not a shutdown); its data is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open but nothing is answered (a Redis too slow to use), until `thaw()`. */
  freeze(): void;
  thaw(): void;
  /** A plain client, for reading what the gateway stored. */
  client(): Redis;
  /** Until `count` connections subscribe to `channel` (throws past `withinMs`, saying how many did). */
  untilSubscribed(channel: string, count: number, withinMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startRedisServer(): Promise<RedisServer> {
  const port = Number(new URL(await refusedUrl()).port);
  const clients: Redis[] = [];
  let child: ChildProcess | undefined;

  async function start(): Promise<void> {
    const started = spawn(
      REDIS_SERVER,
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = started;
    let output = '';
    started.stdout?.on('data', (chunk) => (output += chunk));
    started.stderr?.on('data', (chunk) => (output += chunk));
    let failed: Error | undefined;
    started.once(
      'error',
      (error) => (failed = new Error(`${REDIS_SERVER} could not be started (${error.message}): install redis-server (.ci/run does)`)),
    );
    started.once('exit', (code) => (failed ??= new Error(`redis-server exited (${code}) before it was ready: ${output}`)));
    // Ready once it answers a PING.
    for (;;) {
      if (failed) throw failed;
      const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined); // not listening yet: tried again below
      try {
        await client.connect();
        await client.ping();
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20));
      } finally {
        client.disconnect();
      }
    }
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL'); // a frozen process dies too
    await exited;
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    stop,
    start,
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    client() {
      const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
      client.on('error', () => undefined); // the server may be stopped on purpose; commands still fail
      clients.push(client);
      return client;
    },
    async untilSubscribed(channel, count, withinMs = 5000) {
      const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0 });
      client.on('error', () => undefined); // reconnecting after a restart: asked again below
      let subscribed = 0;
      try {
        for (const giveUpAt = Date.now() + withinMs; Date.now() < giveUpAt; ) {
          subscribed = await client.pubsub('NUMSUB', channel).then(
            ([, n]) => Number(n),
            () => subscribed,
          );
          if (subscribed >= count) return;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        throw new Error(`${subscribed} connections subscribe to ${channel} after ${withinMs} ms, not ${count}`);
      } finally {
        client.disconnect();
      }
    },
    async close() {
      for (const client of clients.splice(0)) client.disconnect();
      await stop();
    },
  };
}
