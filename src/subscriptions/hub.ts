// This instance's subscriptions: one shared poll per (caller, watched record), the open streams
// counted per caller and in all, writes re-polling what they touched (writes through this instance,
// and with a feed those through the others), and the end of every stream at shutdown. Polls are
// keyed by the caller's tag (an HMAC of the key under a secret of this process), never by the key.
import { randomBytes } from 'node:crypto';
import { callerTag } from '../caller.ts';
import { gatewayError } from '../graphql-errors.ts';
import type { Logger } from '../observability/logger.ts';
import type { UpstreamRequest, UpstreamResponse, UpstreamTransport } from '../rest/transport.ts';
import { writeMayHaveChanged } from '../rest/upstream-error.ts';
import type { SubscriptionEvents, WriteOrigin } from './metrics.ts';
import { Poller } from './poller.ts';
import { Subscriber } from './subscriber.ts';
import type { PollEvent, PollRunner, WatchedResource } from './watched.ts';

/** A write that may have changed what its REST path names. */
interface Write {
  method: string;
  path: string;
}

interface SubscriptionHubOptions {
  /** SUBSCRIPTION_POLL_MS. */
  pollMs: number;
  /** MAX_SUBSCRIPTIONS_PER_KEY. */
  maxPerKey: number;
  /** MAX_SUBSCRIPTIONS. */
  max: number;
  run: PollRunner;
  logger: Logger;
  /** Writes through other instances, heard here, and this instance's told to them (CACHE=redis: src/store/write-feed.ts). */
  feed?: {
    publish(write: Write): void;
    subscribe(listener: (write: Write) => void): void;
  };
  /** Told of refusals, polls and writes (src/subscriptions/metrics.ts). */
  events?: SubscriptionEvents;
}

export interface SubscriptionHub {
  /** A new stream of the record's events for this key; QUERY_TOO_COMPLEX past the limits. */
  open<T>(key: string, resource: WatchedResource<T>): AsyncIterableIterator<PollEvent<T>>;
  /** The transport a request's writes go through: each one that may have changed something re-polls the records it touches. */
  notifyingWrites(transport: UpstreamTransport): UpstreamTransport;
  /** Open streams, and polls running (metrics, tests). */
  stats(): { streams: number; polls: number };
  /** Completes every stream and stops every poll; later subscriptions complete at once (SIGTERM). */
  close(): void;
}

/** Each limit's setting, and the name `extensions.limit` gives it. */
const LIMIT_NAMES = { MAX_SUBSCRIPTIONS_PER_KEY: 'maxSubscriptionsPerKey', MAX_SUBSCRIPTIONS: 'maxSubscriptions' } as const;

export function createSubscriptionHub(options: SubscriptionHubOptions): SubscriptionHub {
  const secret = randomBytes(32).toString('base64url');
  const pollers = new Map<string, Poller<unknown>>();
  const streamsPerTag = new Map<string, number>();
  let streams = 0;
  let closed = false;

  const refuse = (setting: keyof typeof LIMIT_NAMES, max: number, scope: string) => {
    options.events?.refused(setting);
    const limit = LIMIT_NAMES[setting];
    return gatewayError('QUERY_TOO_COMPLEX', `At most ${max} subscriptions may be open ${scope}; close one before opening another.`, {
      limit,
      max,
    });
  };

  const pollerFor = <T>(tag: string, key: string, resource: WatchedResource<T>): Poller<T> => {
    const id = `${tag} ${resource.key}`;
    let poller = pollers.get(id) as Poller<T> | undefined;
    if (!poller) {
      poller = new Poller(resource, key, {
        pollMs: options.pollMs,
        run: options.run,
        logger: options.logger,
        onPolled: options.events?.polled,
        onStop: () => pollers.delete(id),
      });
      pollers.set(id, poller as Poller<unknown>);
    }
    return poller;
  };

  /**
   * A write changes the record a poll reads when its path is at or below the poll's (an action such
   * as `…/pause/`, a member of a watched `…/members/`), or when it deletes something above it. A
   * create (POST to a list) changes no record already under that list.
   */
  const touched = ({ method, path }: Write, origin: WriteOrigin) => {
    options.events?.written(origin);
    for (const poller of pollers.values()) {
      const watched = poller.resource.path;
      if (path.startsWith(watched) || (method === 'DELETE' && watched.startsWith(path))) poller.written();
    }
  };
  const written = ({ method, path }: UpstreamRequest) => {
    touched({ method, path }, 'this_instance');
    options.feed?.publish({ method, path });
  };
  options.feed?.subscribe((write) => {
    if (!closed) touched(write, 'other_instance');
  });

  return {
    open<T>(key: string, resource: WatchedResource<T>) {
      if (closed) {
        const finished = new Subscriber<T>(() => undefined);
        finished.end();
        return finished;
      }
      const tag = callerTag(secret, key);
      const own = streamsPerTag.get(tag) ?? 0;
      if (own >= options.maxPerKey) throw refuse('MAX_SUBSCRIPTIONS_PER_KEY', options.maxPerKey, 'per key on this instance');
      if (streams >= options.max) throw refuse('MAX_SUBSCRIPTIONS', options.max, 'on this instance');
      streamsPerTag.set(tag, own + 1);
      streams += 1;
      const poller = pollerFor(tag, key, resource);
      const subscriber = new Subscriber<T>(() => {
        streams -= 1;
        const left = (streamsPerTag.get(tag) ?? 1) - 1;
        if (left === 0) streamsPerTag.delete(tag);
        else streamsPerTag.set(tag, left);
        poller.remove(subscriber);
      });
      poller.add(subscriber);
      return subscriber;
    },
    notifyingWrites(transport) {
      const write = async <R>(req: UpstreamRequest): Promise<UpstreamResponse<R>> => {
        try {
          const response = await transport.request<R>(req);
          written(req);
          return response;
        } catch (error) {
          if (writeMayHaveChanged(error)) written(req);
          throw error;
        }
      };
      return {
        // A read passes straight through: no async frame and promise of its own per call.
        request: <R>(req: UpstreamRequest) => (req.method === 'GET' ? transport.request<R>(req) : write<R>(req)),
        close: () => transport.close(),
      };
    },
    stats: () => ({ streams, polls: pollers.size }),
    close() {
      closed = true;
      for (const poller of [...pollers.values()]) poller.stop();
    },
  };
}
