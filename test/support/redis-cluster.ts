// A Redis Cluster of a spec's own: three masters (Debian's redis-server in cluster mode, no
// replicas) on free loopback ports, joined with `redis-cli --cluster create`, nothing persisted, so
// the gateway's store can be shown to run on a cluster, where a command or pipeline that spans two
// hash slots fails (CROSSSLOT). A master can be paused, or killed and started again on its port,
// where it rejoins with its slots (its nodes file is kept), empty.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { refusedUrl } from './refused-url.ts';

const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';
const REDIS_CLI = process.env.REDIS_CLI ?? '/usr/bin/redis-cli';
const MASTERS = 3;

export interface RedisCluster {
  /** `redis-cluster://127.0.0.1:<port>,…`: every master as a seed node. */
  url: string;
  /** A cluster client, for reading what the gateway stored. */
  client(): Cluster;
  /** The port of the master that serves `key`'s hash slot. */
  masterOf(key: string): Promise<number>;
  /** SIGSTOP: the master's connections stay open but nothing is answered, until `thaw(port)`. */
  freeze(port: number): void;
  thaw(port: number): void;
  /** Kills the master (SIGKILL: an outage), until `start(port)`. */
  stop(port: number): Promise<void>;
  /** Starts it again on its port, until the cluster reports every slot served again. */
  start(port: number): Promise<void>;
  close(): Promise<void>;
}

/** A process killed by a signal has no exit code, only its signal. */
const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

const freePort = async () => Number(new URL(await refusedUrl()).port);

export async function startRedisCluster(): Promise<RedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-redis-cluster-'));
  const children: ChildProcess[] = [];
  const clients: Cluster[] = [];
  const close = async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await Promise.all(
      children.map((child) => {
        if (hasExited(child)) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        return exited;
      }),
    );
    await rm(dir, { recursive: true, force: true });
  };
  /** Each master's process and its arguments, by port. */
  const masters = new Map<number, { child: ChildProcess; args: string[] }>();
  const spawnMaster = async (port: number, args: string[]) => {
    const child = spawn(REDIS_SERVER, args, { stdio: 'ignore' });
    children.push(child);
    masters.set(port, { child, args });
    await untilAnswers(port);
  };
  const master = (port: number) => {
    const found = masters.get(port);
    if (!found) throw new Error(`no master on port ${port}`);
    return found;
  };
  try {
    const ports: number[] = [];
    for (let i = 0; i < MASTERS; i++) {
      const [port, busPort] = [await freePort(), await freePort()];
      ports.push(port);
      const settings: Record<string, string> = {
        port: String(port),
        'cluster-port': String(busPort),
        bind: '127.0.0.1',
        'cluster-enabled': 'yes',
        'cluster-config-file': `nodes-${port}.conf`,
        dir,
        save: '',
        appendonly: 'no',
        loglevel: 'warning',
      };
      await spawnMaster(
        port,
        Object.entries(settings).flatMap(([name, value]) => [`--${name}`, value]),
      );
    }
    const nodes = ports.map((port) => `127.0.0.1:${port}`);
    await promisify(execFile)(REDIS_CLI, ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes']);
    for (const port of ports) await untilClusterOk(port);
    return {
      url: `redis-cluster://${nodes.join(',')}`,
      client() {
        const client = new Cluster(ports.map((port) => ({ host: '127.0.0.1', port })));
        client.on('error', () => undefined);
        clients.push(client);
        return client;
      },
      async masterOf(key) {
        const client = new Redis(ports[0] as number, '127.0.0.1', { maxRetriesPerRequest: 0 });
        client.on('error', () => undefined);
        try {
          const slot = Number(await client.cluster('KEYSLOT', key));
          const range = (await client.cluster('SLOTS')).find(([from, to]) => from <= slot && slot <= to);
          return Number(range?.[2]?.[1]);
        } finally {
          client.disconnect();
        }
      },
      freeze: (port) => void master(port).child.kill('SIGSTOP'),
      thaw: (port) => void master(port).child.kill('SIGCONT'),
      async stop(port) {
        const { child } = master(port);
        if (hasExited(child)) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      },
      async start(port) {
        await spawnMaster(port, master(port).args);
        for (const each of ports) await untilClusterOk(each);
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function untilAnswers(port: number): Promise<void> {
  for (let tries = 0; ; tries++) {
    const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.ping();
      return;
    } catch (error) {
      if (tries > 250) throw new Error(`${REDIS_SERVER} on port ${port} did not answer: ${(error as Error).message}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      client.disconnect();
    }
  }
}

/** Until the node reports every slot served (`cluster_state:ok`). */
async function untilClusterOk(port: number): Promise<void> {
  const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0 });
  client.on('error', () => undefined);
  try {
    for (let tries = 0; ; tries++) {
      const info = String(await client.cluster('INFO'));
      if (info.includes('cluster_state:ok')) return;
      if (tries > 500) throw new Error(`the cluster did not become ready: ${info}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    client.disconnect();
  }
}
