// This instance's subscriptions: one shared poll per (caller, watched record), the open streams
// counted per caller and in all, writes re-polling what they touched (writes through this instance,
// and with a feed those through the others), and the end of every stream at shutdown. Polls are
// keyed by the caller's tag (an HMAC of the key under a secret of this process), never by the key.
import { randomBytes } from 'node:crypto';
import { callerTag } from '../caller.ts';
import { gatewayError } from '../errors/graphql-errors.ts';
import type { Logger } from '../observability/logger.ts';
import type { UpstreamRequest, UpstreamResponse, UpstreamTransport } from '../upstream/transport/transport.ts';
import { writeMayHaveChanged } from '../upstream/upstream-error.ts';
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
  /**
   * A new stream of the record's events for this key, once its first poll showed the upstream
   * accepts the key (that poll's UNAUTHENTICATED or FORBIDDEN otherwise, and no slot held);
   * QUERY_TOO_COMPLEX past the limits. `signal`: the caller left while the first poll ran.
   */
  open<T>(key: string, resource: WatchedResource<T>, signal?: AbortSignal): Promise<AsyncIterableIterator<PollEvent<T>>>;
  /** The transport a request's writes go through: each one that may have changed something re-polls the records it touches. */
  notifyingWrites(transport: UpstreamTransport): UpstreamTransport;
  /** Open streams, and polls running (metrics, tests). */
  stats(): { streams: number; polls: number };
  /** Completes every stream and stops every poll; later subscriptions complete at once (SIGTERM). */
  close(): void;
}

/** A first poll's errors that show the upstream refuses the key: the subscription is refused with it. */
const KEY_REFUSALS = new Set(['UNAUTHENTICATED', 'FORBIDDEN']);

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

  /** Throws the refusal when this key, or the instance, has as many streams open as it may. */
  const checkLimits = (tag: string) => {
    if ((streamsPerTag.get(tag) ?? 0) >= options.maxPerKey)
      throw refuse('MAX_SUBSCRIPTIONS_PER_KEY', options.maxPerKey, 'per key on this instance');
    if (streams >= options.max) throw refuse('MAX_SUBSCRIPTIONS', options.max, 'on this instance');
  };

  return {
    async open<T>(key: string, resource: WatchedResource<T>, signal?: AbortSignal) {
      if (closed) {
        const finished = new Subscriber<T>(() => undefined);
        finished.end();
        return finished;
      }
      const tag = callerTag(secret, key);
      checkLimits(tag);
      const poller = pollerFor(tag, key, resource);
      let admitted = false;
      const subscriber = new Subscriber<T>(() => {
        poller.remove(subscriber);
        if (!admitted) return;
        streams -= 1;
        const left = (streamsPerTag.get(tag) ?? 1) - 1;
        if (left === 0) streamsPerTag.delete(tag);
        else streamsPerTag.set(tag, left);
      });
      // Its first event (the shared poll's last, or its first poll's) decides: a key the upstream
      // refuses holds no slot, whatever the budget or the poll interval would make it wait.
      poller.add(subscriber);
      const first = await subscriber.firstEvent;
      const refusedKey = first && 'error' in first && KEY_REFUSALS.has(String(first.error.extensions.code));
      if (refusedKey) {
        void subscriber.return();
        throw first.error;
      }
      // Its client left while the first poll ran: an ended stream, and no slot.
      if (signal?.aborted) {
        void subscriber.return();
        return subscriber;
      }
      try {
        checkLimits(tag);
      } catch (error) {
        void subscriber.return();
        throw error;
      }
      admitted = true;
      streamsPerTag.set(tag, (streamsPerTag.get(tag) ?? 0) + 1);
      streams += 1;
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
