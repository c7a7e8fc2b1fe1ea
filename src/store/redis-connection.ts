// How the store reaches Redis: one server (CACHE=redis://…) or a Redis Cluster
// (CACHE=redis-cluster://…), through the same ioredis commands. Nothing waits on a connection: no
// command is queued while it is down or retried, and it reconnects in the background for ever.
// Commands have no timeout of their own here: ioredis' is a plain timer, which a stall of this
// process fires before the answer is read; the store bounds each answer (answer-deadline.ts).
import { createRequire } from 'node:module';
import type { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import { redisClusterTarget } from '../config/index.ts';

// Loaded on the first connection, not at start: a gateway without a Redis CACHE never connects,
// and ioredis is ~40 ms of a start and ~1 MB of heap (docs/performance.md#memory-at-rest).
// `require`, as the store is built synchronously.
const load = createRequire(import.meta.url);

export type RedisClient = Redis | Cluster;

interface ConnectionOptions {
  connectionName: string;
  scripts?: RedisOptions['scripts'];
}

/** Reconnects at most every 2 s. */
const reconnectDelay = (times: number) => Math.min(100 * times, 2000);

export function connectRedis(url: string, { connectionName, scripts }: ConnectionOptions): RedisClient {
  const { Cluster, Redis } = load('ioredis') as typeof import('ioredis');
  const cluster = redisClusterTarget(url);
  const common = { connectionName, maxRetriesPerRequest: 0, autoResubscribe: false };
  if (!cluster) return new Redis(url, { ...common, enableOfflineQueue: false, retryStrategy: reconnectDelay, scripts });
  const options: ClusterOptions = {
    // With TLS the nodes are reached by the names they announce, so their certificates match
    // (ioredis' README, for managed clusters such as ElastiCache); not tried against one here.
    ...(cluster.tls ? { dnsLookup: (address: string, done: (error: null, address: string) => void) => done(null, address) } : {}),
    enableOfflineQueue: false,
    clusterRetryStrategy: reconnectDelay,
    scripts,
    redisOptions: { ...common, username: cluster.username, password: cluster.password, tls: cluster.tls ? {} : undefined },
  };
  return new Cluster(cluster.nodes, options);
}
