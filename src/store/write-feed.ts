// The write feed on Redis pub/sub: each instance publishes the writes through it that may have
// changed something (method and REST path: no key, no body), and hears the others', so a mutation
// through any instance pushes to every instance's subscribers without waiting for their next poll.
// Messages are not kept: one published while an instance is disconnected is lost to it, and its
// subscriptions see the change at their next poll.
import { randomBytes } from 'node:crypto';
import type { RedisClient } from './redis-connection.ts';
import type { PublishedWrite, WriteFeed } from './shared-store.ts';

const CHANNEL = 'gw:writes';
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Longer than any REST path the gateway makes; a longer message is not one of its own. */
const MAX_PATH_LENGTH = 2048;

/**
 * `redis`: the store's connection, which publishes (through `run`: given up while the store is
 * away). Listening takes a connection of its own (`connect`), made on the first `subscribe`.
 */
export function createRedisWriteFeed(
  redis: RedisClient,
  run: <T>(operation: () => Promise<T>) => Promise<T>,
  connect: () => RedisClient,
): WriteFeed & { close(): void } {
  /** Tells this instance's messages from the others'. */
  const instance = randomBytes(12).toString('base64url');
  /** The listening connection (one listener per feed: the gateway's subscription hub). */
  let listening: RedisClient | undefined;
  return {
    publish({ method, path }) {
      void run(() => redis.publish(CHANNEL, JSON.stringify([instance, method, path]))).catch(() => undefined);
    },
    subscribe(listener) {
      // A connection of its own in subscriber mode, which subscribes each time it is (re)connected:
      // it reconnects by itself, as the store's does, and meanwhile polls carry the changes.
      const connection = connect();
      listening = connection;
      connection.on('error', () => undefined);
      connection.on('ready', () => void connection.subscribe(CHANNEL).catch(() => undefined));
      connection.on('message', (channel: string, message: string) => {
        const write = channel === CHANNEL ? parsed(message, instance) : undefined;
        if (write) listener(write);
      });
    },
    close() {
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
