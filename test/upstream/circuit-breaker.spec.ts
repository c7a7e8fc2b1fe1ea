// What the circuit breakers count (failureScope), over every kind of upstream failure: only what no
// request's content can cause counts for the whole upstream, only reads count for their route, and
// nothing about one request (4xx, a write, the caller's abort) counts at all. The breakers' behaviour
// over HTTP: test/limits/resilience.spec.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { failureScope } from '../../src/upstream/resilience/circuit-breaker.ts';
import { type HttpMethod, UpstreamError, type UpstreamErrorInit, type UpstreamErrorKind } from '../../src/upstream/upstream-error.ts';

const CONNECT_FAILURES = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT'];
const failures = fc.record({
  kind: fc.constantFrom<UpstreamErrorKind>('http', 'timeout', 'network', 'malformed', 'too-large', 'redirect', 'aborted', 'circuit-open'),
  method: fc.constantFrom<HttpMethod>('GET', 'POST', 'PATCH', 'DELETE'),
  status: fc.option(fc.integer({ min: 100, max: 599 }), { nil: undefined }),
  networkCode: fc.option(fc.constantFrom(...CONNECT_FAILURES, 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'), {
    nil: undefined,
  }),
});
const errorOf = (init: Omit<UpstreamErrorInit, 'route'>) => new UpstreamError({ ...init, route: '/api/organizations/' });

describe('failureScope', () => {
  it('counts a failure to connect for the whole upstream, whatever the method', () => {
    fc.assert(
      fc.property(failures, (init) => {
        const scope = failureScope(errorOf(init));
        const connectFailure = init.kind === 'network' && CONNECT_FAILURES.includes(init.networkCode ?? '');
        expect(scope === 'upstream').toBe(connectFailure);
      }),
    );
  });

  it('counts nothing else of a write, no 4xx, no abort, redirect or answer too large', () => {
    fc.assert(
      fc.property(failures, (init) => {
        const scope = failureScope(errorOf(init));
        if (init.method !== 'GET' || ['aborted', 'redirect', 'circuit-open', 'too-large'].includes(init.kind))
          expect(scope).not.toBe('route');
        if (init.kind === 'http' && (init.status ?? 0) < 500) expect(scope).toBeUndefined();
      }),
    );
  });

  it("counts a read's 5xx, malformed answer, dropped connection or timeout for its route", () => {
    for (const init of [
      { kind: 'http', status: 500 },
      { kind: 'http', status: 503 },
      { kind: 'malformed', status: 200 },
      { kind: 'network', networkCode: 'ECONNRESET' },
      { kind: 'timeout', sent: true, ownTimeout: true },
    ] as const) {
      expect(failureScope(new UpstreamError({ ...init, method: 'GET', route: '/api/organizations/' }))).toBe('route');
    }
    expect(failureScope(new Error('not an upstream failure'))).toBeUndefined();
  });

  it('does not count a timeout of a call that never left the gateway (it waited for a pooled connection)', () => {
    expect(failureScope(new UpstreamError({ kind: 'timeout', sent: false, method: 'GET', route: '/api/organizations/' }))).toBeUndefined();
  });

  it("counts a read's timeout only when its own UPSTREAM_TIMEOUT_MS cut it and the upstream held it at least as long as the gateway's queue did", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), fc.nat(20_000), fc.nat(20_000), (ownTimeout, sent, queuedMs, wireMs) => {
        const scope = failureScope(errorOf({ kind: 'timeout', method: 'GET', ownTimeout, sent, queuedMs, wireMs: sent ? wireMs : 0 }));
        expect(scope).toBe(ownTimeout && sent && wireMs >= queuedMs ? 'route' : undefined);
      }),
    );
  });
});
