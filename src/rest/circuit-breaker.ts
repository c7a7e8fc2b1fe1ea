// One circuit breaker (opossum) for the whole upstream: after repeated failures it fails calls
// fast without sending them, then lets a probe through after `resetTimeoutMs` and closes again
// when the probe succeeds. Answers the upstream gave on purpose (4xx) are not failures.
import CircuitBreaker from 'opossum';
import { UpstreamError } from './upstream-error.ts';
import type { UpstreamRequest, UpstreamResponse, UpstreamTransport } from './transport.ts';

export interface CircuitBreakerOptions {
  /** Failure percentage within the rolling window that opens the circuit. @default 50 */
  errorThresholdPercentage?: number;
  /** Calls the window must hold before the percentage counts. @default 10 */
  volumeThreshold?: number;
  /** How long the circuit stays open before a probe. @default 5000 */
  resetTimeoutMs?: number;
  /** The rolling window. @default 10000 */
  rollingWindowMs?: number;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface GuardedTransport extends UpstreamTransport {
  state(): CircuitState;
  onStateChange(listener: (state: CircuitState) => void): void;
}

/** A failure of the upstream itself, as opposed to an answer about the request (4xx) or the caller giving up. */
function isUpstreamFailure(error: unknown): boolean {
  if (!(error instanceof UpstreamError)) return false;
  if (error.kind === 'http') return (error.status ?? 0) >= 500;
  return error.kind === 'network' || error.kind === 'timeout' || error.kind === 'malformed';
}

export function withCircuitBreaker(transport: UpstreamTransport, options: CircuitBreakerOptions = {}): GuardedTransport {
  const breaker = new CircuitBreaker((req: UpstreamRequest) => transport.request(req), {
    timeout: false, // the transport has its own deadline
    // Only the failure ratio matters here: no latency percentiles or periodic snapshots per call.
    rollingPercentilesEnabled: false,
    enableSnapshots: false,
    errorThresholdPercentage: options.errorThresholdPercentage ?? 50,
    volumeThreshold: options.volumeThreshold ?? 10,
    resetTimeout: options.resetTimeoutMs ?? 5000,
    rollingCountTimeout: options.rollingWindowMs ?? 10_000,
    // opossum: returning true means "do not count this error as a failure".
    errorFilter: (error: unknown) => !isUpstreamFailure(error),
  });
  const listeners: ((state: CircuitState) => void)[] = [];
  const state = (): CircuitState => (breaker.opened ? 'open' : breaker.halfOpen ? 'half-open' : 'closed');
  const notify = () => listeners.forEach((listener) => listener(state()));
  breaker.on('open', notify);
  breaker.on('halfOpen', notify);
  breaker.on('close', notify);

  return {
    request<T>(req: UpstreamRequest): Promise<UpstreamResponse<T>> {
      // A plain .catch, not an async wrapper: this runs for every upstream call.
      return (breaker.fire(req) as Promise<UpstreamResponse<T>>).catch((error: unknown) => {
        if ((error as { code?: string }).code === 'EOPENBREAKER') {
          throw new UpstreamError({ kind: 'circuit-open', method: req.method, route: req.route ?? req.path });
        }
        throw error;
      });
    },
    async close() {
      breaker.shutdown();
      await transport.close();
    },
    state,
    onStateChange: (listener) => listeners.push(listener),
  };
}
