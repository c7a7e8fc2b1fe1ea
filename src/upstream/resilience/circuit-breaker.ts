// Circuit breakers that fail calls fast, without sending them, while the upstream is failing, and
// that one caller's failures cannot open for everyone else:
// - one breaker for the whole upstream (`*`) counts only failures to connect at all (refused, name
//   not resolved, connect timeout): no request's content can cause those, whatever its method;
// - one breaker per route template, for reads only, counts a read's 5xx, malformed answer, dropped
//   connection or timeout on the wire (one the upstream held for the call's own UPSTREAM_TIMEOUT_MS,
//   and longer than our pool's queue did): that endpoint is failing, the others may be fine.
// A write's failure, any 4xx (a 429 included), a caller's own abort or request deadline and a
// redirect never count: each says something about one request, and counting them let one key pause
// every key's calls.
// An open breaker fails its calls for `resetTimeoutMs`; then the next call is a probe, and any
// outcome the breaker does not count (an answer, even a 4xx) closes it again.
// Each breaker is opossum's: its rolling window, volumeThreshold, errorThresholdPercentage and
// resetTimeout are the CIRCUIT_BREAKER_* settings, and its errorFilter is failureScope below.
import CircuitBreaker from 'opossum';
import type { UpstreamRequest, UpstreamResponse, UpstreamTransport } from '../transport/transport.ts';
import { UpstreamError } from '../upstream-error.ts';

export interface CircuitBreakerOptions {
  /** Failure percentage within the rolling window that opens a circuit (CIRCUIT_BREAKER_ERROR_PERCENT). */
  errorThresholdPercentage: number;
  /** Calls a circuit's window must hold before the percentage counts (CIRCUIT_BREAKER_MIN_CALLS). */
  volumeThreshold: number;
  /** How long a circuit stays open before a probe (CIRCUIT_BREAKER_RESET_MS). */
  resetTimeoutMs: number;
  /** The rolling window. @default ROLLING_WINDOW_MS */
  rollingWindowMs?: number;
}

/** The window the failure percentage is counted over (not a setting). */
const ROLLING_WINDOW_MS = 10_000;

export type CircuitState = 'closed' | 'open' | 'half-open';

/** The route name of the whole-upstream breaker, in states, metrics, logs and readiness. */
export const WHOLE_UPSTREAM = '*';

export interface GuardedTransport extends UpstreamTransport {
  /** The whole upstream's breaker, or one route template's (closed when it has none yet). */
  state(route?: string): CircuitState;
  /** The breakers that are not closed, the whole upstream's first. */
  circuits(): { route: string; state: CircuitState }[];
  onStateChange(listener: (state: CircuitState, route: string) => void): void;
}

/** Which breaker a failed call counts against, if any: `upstream` (all calls), `route` (its template's reads). */
export function failureScope(error: unknown): 'upstream' | 'route' | undefined {
  if (!(error instanceof UpstreamError)) return undefined;
  if (error.kind === 'network' && CONNECT_FAILURES.has(error.networkCode ?? '')) return 'upstream';
  if (error.method !== 'GET') return undefined; // a write's failure may be of its own making (its body, its record)
  switch (error.kind) {
    case 'http':
      return (error.status ?? 0) >= 500 ? 'route' : undefined;
    case 'timeout':
      // Only the upstream's own slowness: a call cut by its request's deadline or caller (one caller
      // can bring its deadline close), never sent (it waited in our pool's queue), or held longer by
      // our queue than by the upstream, says nothing of the upstream's health.
      return error.ownTimeout && error.sent && error.wireMs >= error.queuedMs ? 'route' : undefined;
    case 'network':
    case 'malformed':
      return 'route';
    default:
      return undefined; // aborted by its caller, a redirect, refused by a breaker
  }
}

/** No connection could be made: nothing of the request reached the upstream. */
const CONNECT_FAILURES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Route templates are the fixed set of src/upstream/client.ts (a few dozen); past this many, reads of a
 * new template are guarded by the whole-upstream breaker only.
 */
const MAX_ROUTE_BREAKERS = 100;

type Breaker = CircuitBreaker<[UpstreamRequest, Breaker?], UpstreamResponse>;

export function withCircuitBreakers(transport: UpstreamTransport, options: CircuitBreakerOptions): GuardedTransport {
  const listeners: ((state: CircuitState, route: string) => void)[] = [];
  // A read goes through the whole upstream's breaker, then its route's, then the transport.
  const send = (req: UpstreamRequest, reads?: Breaker): Promise<UpstreamResponse> => (reads ? reads.fire(req) : transport.request(req));

  const breaker = (route: string, counts: 'upstream' | 'route'): Breaker => {
    const created: Breaker = new CircuitBreaker(send, {
      timeout: false, // the transport has its own deadline
      // Only the failure ratio matters here: no latency percentiles or periodic snapshots per call.
      rollingPercentilesEnabled: false,
      enableSnapshots: false,
      errorThresholdPercentage: options.errorThresholdPercentage,
      volumeThreshold: options.volumeThreshold,
      resetTimeout: options.resetTimeoutMs,
      rollingCountTimeout: options.rollingWindowMs ?? ROLLING_WINDOW_MS,
      // True means "not a failure of mine": it counts as a success, and closes a half-open circuit.
      errorFilter: (error: unknown) => failureScope(error) !== counts,
    });
    const notify = () => {
      for (const listener of listeners) listener(stateOf(created), route);
    };
    created.on('open', notify);
    created.on('halfOpen', notify);
    created.on('close', notify);
    return created;
  };

  const upstream = breaker(WHOLE_UPSTREAM, 'upstream');
  const routes = new Map<string, Breaker>();
  const routeBreaker = (route: string): Breaker | undefined => {
    let found = routes.get(route);
    if (!found && routes.size < MAX_ROUTE_BREAKERS) {
      found = breaker(route, 'route');
      routes.set(route, found);
    }
    return found;
  };

  return {
    request<T>(req: UpstreamRequest): Promise<UpstreamResponse<T>> {
      const { route } = req;
      const reads = req.method === 'GET' ? routeBreaker(route) : undefined;
      // Both breakers are asked before either is fired, so a call one of them refuses does not
      // use up the other's half-open probe.
      if (refuses(upstream) || (reads && refuses(reads))) {
        return Promise.reject(new UpstreamError({ kind: 'circuit-open', method: req.method, route }));
      }
      return upstream.fire(req, reads) as Promise<UpstreamResponse<T>>;
    },
    async close() {
      upstream.shutdown();
      for (const reads of routes.values()) reads.shutdown();
      await transport.close();
    },
    state(route?: string) {
      const found = route === undefined || route === WHOLE_UPSTREAM ? upstream : routes.get(route);
      return found ? stateOf(found) : 'closed';
    },
    circuits() {
      return [[WHOLE_UPSTREAM, upstream] as const, ...routes]
        .map(([route, found]) => ({ route, state: stateOf(found) }))
        .filter(({ state }) => state !== 'closed');
    },
    onStateChange: (listener) => {
      listeners.push(listener);
    },
  };
}

/** A shut-down breaker reads as closed (it refuses every call all the same). */
function stateOf(breaker: Breaker): CircuitState {
  return breaker.opened ? 'open' : breaker.halfOpen ? 'half-open' : 'closed';
}

/** Open, half-open with its one probe already sent, or shut down: opossum would refuse the call. */
function refuses(breaker: Breaker): boolean {
  return !breaker.closed && !breaker.pendingClose;
}
