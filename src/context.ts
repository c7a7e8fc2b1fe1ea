// The per-request context: the caller's key, the request id, and a fresh set of loaders built from
// them. The key is never logged; it goes only to the REST client (whose calls carry it upstream as
// `Authorization: Bearer <key>`, the scheme written as the upstream documents it) and, for a
// subscription, to the hub, whose polls make the same calls with it.
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { callerKey } from './caller.ts';
import { gatewayError } from './errors/graphql-errors.ts';
import { createLoaders, type Loaders } from './loaders/index.ts';
import type { SubscriptionHub } from './subscriptions/hub.ts';
import type { PollEvent, WatchedResource } from './subscriptions/watched.ts';
import type { RequestTrace } from './tracing/index.ts';
import { createRestClient, type RestClient } from './upstream/client.ts';
import { createRequestTransport, type UpstreamCall } from './upstream/transport/request-transport.ts';
import type { UpstreamTransport } from './upstream/transport/transport.ts';

export interface GatewayContext {
  requestId: string;
  /** Whether the request carried a bearer key; without one every upstream field is UNAUTHENTICATED. */
  authenticated: boolean;
  /** The REST client for this caller; throws UNAUTHENTICATED without a key. */
  rest(): RestClient;
  loaders: Loaders;
  /** The upstream calls this request made so far (logs, metrics, the debug extension). */
  upstreamCalls: readonly UpstreamCall[];
  /** Its calls started and not finished yet (the upstream budget counts them too). */
  upstreamCallsInFlight(): number;
  /** Whether one of its writes may have reached the upstream, or is still on its way (idempotent mutations). */
  upstreamWriteMayHaveBeenSent(): boolean;
  /**
   * From now on its upstream calls ignore the caller's disconnect (its deadline still holds): an
   * idempotent mutation keeps its real outcome for the retry. Before its first upstream call.
   */
  outliveCaller(): void;
  /** A subscription's stream of the record's polled events, for this caller's key, once its first poll showed the key accepted; UNAUTHENTICATED without one. */
  watch<T>(resource: WatchedResource<T>): Promise<AsyncIterable<PollEvent<T>>>;
}

const SAFE_REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/** An incoming `x-request-id` is kept when it is a plain token, else a new one is made. */
export function requestIdOf(incoming: string | null): string {
  return incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/** How a GraphQL request came in: its id, when (the `performance.now()` time its deadline counts from), and its trace. */
export interface Arrival {
  requestId: string;
  receivedAt: number;
  /** Unset when the request has no trace: no valid incoming `traceparent`, and no spans exported. */
  trace?: RequestTrace;
}

export interface RequestLimits {
  /** Upstream calls one request may make (the runtime back-up of the fan-out estimate). */
  maxCalls: number;
  /** Upstream calls of one request in flight at once. */
  concurrency: number;
  /** Time from the request's arrival until its last upstream call must have ended, retries included. */
  deadlineMs: number;
  /** List pages a lookup of an invite or member may scan. */
  maxLookupScanPages: number;
  onCall?: (call: UpstreamCall) => void;
}

export function createContext(
  transport: UpstreamTransport,
  request: Request,
  limits: RequestLimits,
  { requestId, receivedAt, trace }: Arrival = { requestId: requestIdOf(null), receivedAt: performance.now() },
  /** This instance's subscriptions; a context without them (a poll's own) cannot subscribe. */
  subscriptions?: SubscriptionHub,
): GatewayContext {
  const key = callerKey(request);
  const requestTransport = createRequestTransport(subscriptions ? subscriptions.notifyingWrites(transport) : transport, limits, trace);
  let client: RestClient | undefined;
  let outlivesCaller = false;
  const rest = () => {
    if (key === null) throw unauthenticated();
    // The deadline counts from the request's arrival, not from its first upstream call; the
    // client's disconnect cancels calls through the signal below.
    if (!client) {
      client = createRestClient(requestTransport, {
        key,
        requestId,
        signal: outlivesCaller ? undefined : disconnectSignal(request),
        deadlineAt: receivedAt + limits.deadlineMs,
      });
    }
    return client;
  };
  return {
    requestId,
    authenticated: key !== null,
    rest,
    loaders: createLoaders(rest, limits.maxLookupScanPages),
    upstreamCalls: requestTransport.calls,
    upstreamCallsInFlight: requestTransport.inFlight,
    upstreamWriteMayHaveBeenSent: () => requestTransport.mayHaveWritten(),
    outliveCaller() {
      outlivesCaller = true;
    },
    watch: (resource) => {
      if (key === null) throw unauthenticated();
      if (!subscriptions) throw new Error('This context was made without subscriptions.');
      return subscriptions.open(key, resource, request.signal);
    },
  };
}

const unauthenticated = () => gatewayError('UNAUTHENTICATED', 'This field needs an `Authorization: Bearer <personal API key>` header.');

/**
 * A plain AbortSignal that aborts when the caller leaves: the calls join it with their deadlines by
 * `AbortSignal.any`, which does not follow the Proxy Yoga's server adapter gives a request as its
 * signal. Every call of the request listens to it: dozens is normal, not a leak.
 */
function disconnectSignal(request: Request): AbortSignal {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const incoming = request.signal;
  if (incoming.aborted) controller.abort(incoming.reason);
  else incoming.addEventListener('abort', () => controller.abort(incoming.reason), { once: true });
  return controller.signal;
}
