// The cache settings: off unless CACHE names a store, each other setting with its default, and a
// clear configuration error that never echoes a Redis URL (it may hold a password).
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redisClusterTarget } from '../../src/config/index.ts';

describe('cache settings', () => {
  it('cache nothing and count no budget by default', () => {
    expect(loadConfig({})).toMatchObject({ cache: undefined, upstreamBudget: undefined });
    expect(loadConfig({ CACHE_TTL_MS: '1000' }).cache).toBeUndefined();
  });

  it('default to a 5 s time to live, a 100 ms store timeout and 10,000 answers or 64 MiB in memory', () => {
    expect(loadConfig({ CACHE: 'memory' }).cache).toEqual({
      store: 'memory',
      ttlMs: 5000,
      secret: undefined,
      timeoutMs: 100,
      maxEntries: 10_000,
      maxBytes: 64 * 1024 * 1024,
    });
  });

  it('read every variable', () => {
    const env = {
      CACHE: 'redis://gateway:s3cret@redis.internal:6380/2',
      CACHE_TTL_MS: '2500',
      CACHE_SECRET: 'a-long-enough-shared-secret',
      CACHE_TIMEOUT_MS: '50',
      CACHE_MAX_ENTRIES: '500',
      CACHE_MAX_BYTES: '1048576',
    };
    expect(loadConfig(env).cache).toEqual({
      store: env.CACHE,
      ttlMs: 2500,
      secret: env.CACHE_SECRET,
      timeoutMs: 50,
      maxEntries: 500,
      maxBytes: 1_048_576,
    });
    expect(loadConfig({ CACHE: 'rediss://redis.internal:6380' }).cache?.store).toBe('rediss://redis.internal:6380');
  });

  it('read a Redis Cluster: its seed nodes, credentials and TLS', () => {
    const store = 'redis-cluster://gateway:s3%40cret@redis-a.internal:7000, redis-b.internal:7001,[::1]:7002';
    expect(loadConfig({ CACHE: store }).cache?.store).toBe(store);
    expect(redisClusterTarget(store)).toEqual({
      nodes: [
        { host: 'redis-a.internal', port: 7000 },
        { host: 'redis-b.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      username: 'gateway',
      password: 's3@cret',
      tls: false,
    });
    // Docker-style service names.
    expect(redisClusterTarget('redis-cluster://redis_node_1:7000')?.nodes).toEqual([{ host: 'redis_node_1', port: 7000 }]);
    expect(redisClusterTarget('rediss-cluster://:pw@h:6379/')).toEqual({
      nodes: [{ host: 'h', port: 6379 }],
      username: undefined,
      password: 'pw',
      tls: true,
    });
  });

  it('refuse a store that is neither memory nor a Redis URL, without echoing it', () => {
    for (const bad of [
      'redis',
      'memcached://h:11211',
      'http://redis.internal:6379',
      'redis://:s3cret@/0',
      'redis://h:6379/zero',
      'redis://h:6379/0?x=1',
      'redis-cluster://h',
      'redis-cluster://h:6379/0',
      'redis-cluster://h:6379,',
      'redis-cluster://h:99999',
      'redis-cluster://:%E0%A4%A@h:6379',
      'redis-cluster+tls://h:6379',
    ]) {
      expect(() => loadConfig({ CACHE: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ CACHE: bad }), bad).toThrow(
        /^CACHE must be `memory`, a Redis URL like redis:\/\/host:6379\/0 \(rediss:\/\/ for TLS\), or a Redis Cluster like redis-cluster:\/\/host:6379,host2:6379\.$/,
      );
    }
  });

  it('refuse a short secret and out-of-range bounds', () => {
    expect(() => loadConfig({ CACHE: 'memory', CACHE_SECRET: 'short' })).toThrow(/^CACHE_SECRET must be at least 16 characters long\.$/);
    expect(() => loadConfig({ CACHE: 'memory', CACHE_TTL_MS: '0' })).toThrow(/CACHE_TTL_MS must be a whole number from 1 to 3600000/);
    expect(() => loadConfig({ CACHE: 'memory', CACHE_TIMEOUT_MS: '20000' })).toThrow(
      /CACHE_TIMEOUT_MS must be a whole number from 1 to 10000/,
    );
    expect(() => loadConfig({ CACHE: 'memory', CACHE_MAX_ENTRIES: '0' })).toThrow(/CACHE_MAX_ENTRIES/);
    expect(() => loadConfig({ CACHE: 'memory', CACHE_MAX_BYTES: '10' })).toThrow(/CACHE_MAX_BYTES/);
  });
});
