// The write feed on Redis pub/sub: each instance publishes the writes through it that may have
// changed something (method and REST path: no key, no body), and hears the others', so a mutation
// through any instance pushes to every instance's subscribers without waiting for their next poll.
// Messages are not kept: one published while an instance is disconnected is lost to it, and its
// subscriptions see the change at their next poll. The feed's failures are its own: they never set
// the store aside (a Redis user may lack the channel's permission and still cache), and are logged
// at most once a minute.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../observability/logger.ts';
import type { RedisClient } from './redis-connection.ts';
import type { PublishedWrite, WriteFeed } from './shared-store.ts';

const WRITE_CHANNEL = 'gw:writes';
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Longer than any REST path the gateway makes; a longer message is not one of its own. */
const MAX_PATH_LENGTH = 2048;
/** A failed SUBSCRIBE (e.g. no permission for the channel) is tried again after this long. */
const SUBSCRIBE_RETRY_MS = 10_000;
/** Each kind of failure is logged at most this often. */
const WARNING_INTERVAL_MS = 60_000;

interface WriteFeedOptions {
  /** The store's connection, which publishes. */
  redis: RedisClient;
  /** Whether the store is up: while it is not, nothing is published (the store reported why). */
  storeUp(): boolean;
  /** Makes the listening connection, on the first `subscribe`. */
  connect(): RedisClient;
  logger: Logger;
  /** Every failure, logged or not (metrics). */
  onFailure?(operation: WriteFeedOperation): void;
}

export type WriteFeedOperation = 'publish' | 'subscribe';

export function createRedisWriteFeed({ redis, storeUp, connect, logger, onFailure }: WriteFeedOptions): WriteFeed & { close(): void } {
  /** Tells this instance's messages from the others'. */
  const instance = randomBytes(12).toString('base64url');
  const warnedAt: Record<WriteFeedOperation, number> = { publish: Number.NEGATIVE_INFINITY, subscribe: Number.NEGATIVE_INFINITY };
  const warn = (kind: WriteFeedOperation, error: unknown) => {
    onFailure?.(kind);
    const now = performance.now();
    if (now - warnedAt[kind] < WARNING_INTERVAL_MS) return;
    warnedAt[kind] = now;
    logger.warn(
      { store: 'redis', channel: WRITE_CHANNEL, err: { message: (error as Error).message } },
      `the write feed could not ${kind}: subscriptions on other instances see writes at their next poll (a Redis ACL user needs &${WRITE_CHANNEL})`,
    );
  };
  /** The listening connection (one listener per feed: the gateway's subscription hub). */
  let listening: RedisClient | undefined;
  let retry: NodeJS.Timeout | undefined;
  return {
    publish({ method, path }) {
      if (!storeUp()) return;
      redis.publish(WRITE_CHANNEL, JSON.stringify([instance, method, path])).catch((error: unknown) => warn('publish', error));
    },
    subscribe(listener) {
      // A connection of its own in subscriber mode, which subscribes each time it is (re)connected:
      // it reconnects by itself, as the store's does, and meanwhile polls carry the changes.
      const connection = connect();
      listening = connection;
      const subscribe = () => {
        clearTimeout(retry);
        connection.subscribe(WRITE_CHANNEL).catch((error: unknown) => {
          warn('subscribe', error);
          retry = setTimeout(() => connection.status === 'ready' && subscribe(), SUBSCRIBE_RETRY_MS);
          retry.unref();
        });
      };
      connection.on('error', () => undefined);
      connection.on('ready', subscribe);
      connection.on('message', (channel: string, message: string) => {
        const write = channel === WRITE_CHANNEL ? parsed(message, instance) : undefined;
        if (write) listener(write);
      });
    },
    close() {
      clearTimeout(retry);
      listening?.disconnect();
    },
  };
}

/** Another instance's write, or undefined for this instance's own or anything malformed. */
function parsed(message: string, instance: string): PublishedWrite | undefined {
  let fields: unknown;
  try {
    fields = JSON.parse(message);
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields.length !== 3) return undefined;
  const [from, method, path] = fields as unknown[];
  if (from === instance || typeof method !== 'string' || !WRITE_METHODS.has(method)) return undefined;
  if (typeof path !== 'string' || !path.startsWith('/') || path.length > MAX_PATH_LENGTH) return undefined;
  return { method, path };
}
