// What a failed upstream call looks like to the rest of the gateway. Messages name only the method
// and the route template, never the key, the host or the concrete URL, so they are safe to log.
import type { RestErrorBody } from '../wire/rest-types.ts';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export type UpstreamErrorKind = 'http' | 'timeout' | 'network' | 'malformed' | 'too-large' | 'redirect' | 'aborted' | 'circuit-open';

export interface UpstreamErrorInit {
  kind: UpstreamErrorKind;
  method: HttpMethod;
  route: string;
  status?: number;
  body?: RestErrorBody;
  detail?: string;
  retryAfterSeconds?: number;
  networkCode?: string;
  attempts?: number;
  durationMs?: number;
  /** @default false: set by the transport for every call it handed to undici. */
  sent?: boolean;
  /** @default 0 */
  queuedMs?: number;
  /** @default 0 */
  wireMs?: number;
  /** @default false: set by the transport for a timeout of the call's own UPSTREAM_TIMEOUT_MS. */
  ownTimeout?: boolean;
  /** Set when this request only waited for another request's identical call, which failed. */
  source?: 'coalesced';
}

export class UpstreamError extends Error {
  override readonly name = 'UpstreamError';
  readonly kind: UpstreamErrorKind;
  readonly method: HttpMethod;
  /** Route template, e.g. `/api/organizations/:organization_id/batch_exports/`. */
  readonly route: string;
  /** The upstream's HTTP status, when it answered at all. */
  readonly status?: number;
  /** The live service's `{type, code, detail, attr}` error body, when it sent that shape. */
  readonly body?: RestErrorBody;
  /** `detail` of any JSON error body (also DRF's bare `{"detail": ...}`), key and host redacted. */
  readonly detail?: string;
  /** From `Retry-After`, or on 429 from the throttling detail text. */
  readonly retryAfterSeconds?: number;
  /** The socket/undici error code behind a `network` failure (e.g. `ECONNREFUSED`), for logs and retry policy. */
  readonly networkCode?: string;
  /** How many times the call was sent, retries included. */
  readonly attempts?: number;
  /** The whole call: every attempt and the waits between them. */
  readonly durationMs?: number;
  /**
   * Whether the request may have reached the upstream: undici started writing it on a socket (in
   * any attempt). False when it never left the gateway: refused or failed connection, or given up
   * while it waited for one. Read it through `mayHaveReachedUpstream`.
   */
  readonly sent: boolean;
  /** Time the attempts waited inside the gateway before being written: for a pooled connection, or for a new one to connect. */
  readonly queuedMs: number;
  /** Time the attempts spent on the wire, from being written to their end: the upstream's own slowness. */
  readonly wireMs: number;
  /**
   * A `timeout` ended by the call's own UPSTREAM_TIMEOUT_MS: the upstream held it that long. False
   * when the request's deadline (REQUEST_DEADLINE_MS, which a caller can bring close) or its caller cut it.
   */
  readonly ownTimeout: boolean;
  /** `coalesced`: this request did not make the call, it waited for another request's identical one. */
  readonly source?: 'coalesced';

  constructor(init: UpstreamErrorInit) {
    super(`${init.method} ${init.route}: ${describe(init)}`);
    this.kind = init.kind;
    this.method = init.method;
    this.route = init.route;
    this.status = init.status;
    this.body = init.body;
    this.detail = init.detail;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.networkCode = init.networkCode;
    this.attempts = init.attempts;
    this.durationMs = init.durationMs;
    this.sent = init.sent ?? false;
    this.queuedMs = init.queuedMs ?? 0;
    this.wireMs = init.wireMs ?? 0;
    this.ownTimeout = init.ownTimeout ?? false;
    this.source = init.source;
  }
}

function describe(init: UpstreamErrorInit): string {
  const status = init.status === undefined ? '' : ` (HTTP ${init.status})`;
  switch (init.kind) {
    case 'http':
      return `upstream answered HTTP ${init.status ?? '?'}`;
    case 'timeout':
      return 'upstream did not answer in time';
    case 'network':
      return `connection failed${init.networkCode ? ` (${init.networkCode})` : ''}`;
    case 'malformed':
      return `upstream sent a malformed response${status}`;
    case 'too-large':
      return `upstream response over the size limit${status}`;
    case 'redirect':
      return `upstream redirected${status}; redirects are not followed`;
    case 'aborted':
      return 'call aborted by the caller';
    case 'circuit-open':
      return 'not sent: the upstream is failing and the circuit breaker is open';
  }
}

/** The caller's key cannot be sent as a bearer token (empty, or not visible ASCII). Nothing was sent. */
export class InvalidKeyError extends Error {
  override readonly name = 'InvalidKeyError';
  constructor() {
    super('The API key is not a valid bearer token.');
  }
}

/**
 * The GraphQL request already made as many upstream calls as it may (MAX_UPSTREAM_CALLS, the runtime
 * back-up of the fan-out estimate): this one was not sent. src/errors/graphql-errors.ts makes it QUERY_TOO_COMPLEX.
 */
export class CallBudgetExceededError extends Error {
  override readonly name = 'CallBudgetExceededError';
  constructor(readonly budget: number) {
    super(`This operation needs more than ${budget} upstream calls, the budget per request.`);
  }
}

/**
 * Whether a failed call may have reached the upstream (so a write may have happened). Only what is
 * known not to have left the gateway answers false; anything else might have.
 */
export function mayHaveReachedUpstream(error: unknown): boolean {
  if (error instanceof UpstreamError) return error.sent;
  return !(error instanceof InvalidKeyError || error instanceof CallBudgetExceededError);
}

/**
 * Whether a failed write may have changed something upstream: it may have reached it, and no answer
 * refused it. A 3xx or 4xx is the upstream's refusal (writes are never retried, so it is the final
 * word); a timeout, a 5xx or a connection lost after sending may hide a write done.
 */
export function writeMayHaveChanged(error: unknown): boolean {
  const refused = error instanceof UpstreamError && (error.kind === 'redirect' || (error.kind === 'http' && (error.status ?? 500) < 500));
  return !refused && mayHaveReachedUpstream(error);
}
