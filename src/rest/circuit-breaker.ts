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
// Each breaker is a small counting one (./breaker.ts) that re-creates what the gateway used of
// opossum, which it replaced: opossum's two fire()s per read cost ~2.3% of the CPU and ~46 KB per
// dashboard; here a call costs a few counter increments and one `.then` for both breakers.
import { Breaker, type BreakerSettings, type CircuitState } from './breaker.ts';
import type { UpstreamRequest, UpstreamResponse, UpstreamTransport } from './transport.ts';
import { UpstreamError } from './upstream-error.ts';

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

export type { CircuitState };

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
 * Route templates are the fixed set of src/rest/client.ts (a few dozen); past this many, reads of a
 * new template are guarded by the whole-upstream breaker only.
 */
const MAX_ROUTE_BREAKERS = 100;

/** What a call's outcome is recorded on: the whole upstream's breaker, and its route's for a read that has one. */
interface Guard<Reads extends Breaker | undefined = Breaker | undefined> {
  reads: Reads;
  /** `.then` handlers made once per guard, so that a call adds no closure of its own. */
  answered: (response: UpstreamResponse) => UpstreamResponse;
  failed: (error: unknown) => never;
}

export function withCircuitBreakers(transport: UpstreamTransport, options: CircuitBreakerOptions): GuardedTransport {
  const listeners: ((state: CircuitState, route: string) => void)[] = [];
  const settings: BreakerSettings = {
    ...options,
    rollingWindowMs: options.rollingWindowMs ?? ROLLING_WINDOW_MS,
  };
  const breaker = (route: string): Breaker =>
    new Breaker(settings, (state) => {
      for (const listener of listeners) listener(state, route);
    });

  const upstream = breaker(WHOLE_UPSTREAM);
  // Each breaker takes any outcome it does not count as a success: an answer, or a failure of the
  // other breaker's kind. The route's breaker first, as when opossum's route breaker was fired
  // inside the whole upstream's and so heard of the outcome first.
  const guard = <Reads extends Breaker | undefined>(reads: Reads): Guard<Reads> => ({
    reads,
    answered: (response) => {
      reads?.succeeded();
      upstream.succeeded();
      return response;
    },
    failed: (error) => {
      const scope = failureScope(error);
      if (scope === 'route') reads?.failed();
      else reads?.succeeded();
      if (scope === 'upstream') upstream.failed();
      else upstream.succeeded();
      throw error;
    },
  });
  const upstreamOnly = guard(undefined);
  const routes = new Map<string, Guard<Breaker>>();
  const routeGuard = (route: string): Guard => {
    let found = routes.get(route);
    if (!found && routes.size < MAX_ROUTE_BREAKERS) {
      found = guard(breaker(route));
      routes.set(route, found);
    }
    return found ?? upstreamOnly;
  };

  return {
    request<T>(req: UpstreamRequest): Promise<UpstreamResponse<T>> {
      const { route } = req;
      const { reads, answered, failed } = req.method === 'GET' ? routeGuard(route) : upstreamOnly;
      // Both breakers are asked before either is fired, so a call one of them refuses does not
      // use up the other's half-open probe.
      if (upstream.refuses() || reads?.refuses()) {
        return Promise.reject(new UpstreamError({ kind: 'circuit-open', method: req.method, route }));
      }
      upstream.fire();
      reads?.fire();
      let sent: Promise<UpstreamResponse<T>>;
      try {
        sent = transport.request<T>(req);
      } catch (error) {
        sent = Promise.reject(error); // counted like a rejection, as opossum did
      }
      return sent.then(answered, failed) as Promise<UpstreamResponse<T>>;
    },
    async close() {
      upstream.shutdown();
      for (const { reads } of routes.values()) reads.shutdown();
      await transport.close();
    },
    state(route?: string) {
      const found = route === undefined || route === WHOLE_UPSTREAM ? upstream : routes.get(route)?.reads;
      return found ? found.state : 'closed';
    },
    circuits() {
      const open: { route: string; state: CircuitState }[] = [];
      if (upstream.state !== 'closed') open.push({ route: WHOLE_UPSTREAM, state: upstream.state });
      for (const [route, { reads }] of routes) if (reads.state !== 'closed') open.push({ route, state: reads.state });
      return open;
    },
    onStateChange: (listener) => {
      listeners.push(listener);
    },
  };
}
