// One route's circuit breaker (opossum, as src/upstream/resilience/circuit-breaker.ts sets it up), seen through the
// guarded transport on a clock the test moves: the boundaries of its rolling window and its states
// one by one. Calls go to a transport the test answers, so that which calls reach it, and which are
// refused, can be counted. The breakers guarding the gateway's calls over HTTP: test/limits/resilience.spec.ts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CircuitBreakerOptions, type CircuitState, withCircuitBreakers } from '../../src/upstream/resilience/circuit-breaker.ts';
import type { UpstreamRequest, UpstreamResponse, UpstreamTransport } from '../../src/upstream/transport/transport.ts';
import { UpstreamError } from '../../src/upstream/upstream-error.ts';

const ROUTE = '/api/organizations/';
const DEFAULT_SETTINGS: Required<CircuitBreakerOptions> = {
  errorThresholdPercentage: 50,
  volumeThreshold: 10,
  resetTimeoutMs: 5000,
  rollingWindowMs: 10_000,
};

beforeEach(() => {
  // Time moves only when told; setImmediate stays real, so that promises can settle between steps.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Lets every settled promise's handlers run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function breakerWith(settings: Partial<CircuitBreakerOptions>) {
  /** Calls that reached the transport and have not ended, oldest first. */
  const running: { resolve: (response: UpstreamResponse) => void; reject: (error: unknown) => void }[] = [];
  let sent = 0;
  const transport: UpstreamTransport = {
    request: <T>() =>
      new Promise<UpstreamResponse<T>>((resolve, reject) => {
        sent += 1;
        running.push({ resolve: resolve as (response: UpstreamResponse) => void, reject });
      }),
    close: async () => {},
  };
  const guarded = withCircuitBreakers(transport, { ...DEFAULT_SETTINGS, ...settings });
  const changes: CircuitState[] = [];
  guarded.onStateChange((state, route) => {
    if (route === ROUTE) changes.push(state);
  });
  const read: UpstreamRequest = { method: 'GET', path: ROUTE, route: ROUTE, key: 'key' };

  /** Sends a read; false if the breaker refused it (nothing reached the transport). */
  const send = async (): Promise<boolean> => {
    const before = sent;
    const outcome = guarded.request(read).catch((error: unknown) => error);
    await settle();
    if (sent > before) return true;
    expect(await outcome).toMatchObject({ kind: 'circuit-open', route: ROUTE });
    return false;
  };
  /**
   * Ends the oldest running call: `x` with a failure the route's breaker counts (a 503), `4` with one
   * it does not count (a 404), `.` with an answer.
   */
  const end = async (outcome: 'x' | '4' | '.') => {
    const call = running.shift();
    if (!call) throw new Error('no call running');
    if (outcome === '.') call.resolve({ status: 200, body: {}, durationMs: 0, attempts: 1 });
    else call.reject(new UpstreamError({ kind: 'http', status: outcome === 'x' ? 503 : 404, method: 'GET', route: ROUTE }));
    await settle();
  };
  /** Sends calls one after the other, each ending as given. */
  const calls = async (outcomes: string) => {
    for (const outcome of outcomes) {
      expect(await send()).toBe(true);
      await end(outcome as 'x' | '4' | '.');
    }
  };
  const state = () => guarded.state(ROUTE);
  const advance = async (ms: number) => {
    await vi.advanceTimersByTimeAsync(ms);
  };
  return { guarded, changes, send, end, calls, state, advance, sent: () => sent };
}

describe("a route's breaker", () => {
  it('opens once its window holds volumeThreshold calls, not one call before', async () => {
    const { calls, state, send } = breakerWith({ volumeThreshold: 4, errorThresholdPercentage: 1 });
    await calls('xxx');
    expect(state()).toBe('closed');
    await calls('x');
    expect(state()).toBe('open');
    expect(await send()).toBe(false);
  });

  it('opens only above errorThresholdPercentage, and only after a counted failure', async () => {
    const { calls, state } = breakerWith({ volumeThreshold: 4, errorThresholdPercentage: 50 });
    await calls('...xxx'); // 3 of 6: exactly 50%
    expect(state()).toBe('closed');
    await calls('x'); // 4 of 7
    expect(state()).toBe('open');

    const another = breakerWith({ volumeThreshold: 4, errorThresholdPercentage: 50 });
    await another.calls('xxx.'); // 75% of 4 calls, but the fourth was not a failure
    expect(another.state()).toBe('closed');
    await another.calls('x');
    expect(another.state()).toBe('open');
  });

  it('compares the percentage in floating point: 7 failures in 100 calls are above 7%', async () => {
    const { calls, state } = breakerWith({ volumeThreshold: 100, errorThresholdPercentage: 7 });
    await calls(`${'.'.repeat(93)}xxxxxx`);
    expect(state()).toBe('closed');
    await calls('x'); // 7 / 100 * 100 is 7.000000000000001
    expect(state()).toBe('open');
  });

  it('forgets calls 9 to 10 tenths of the window after they were made', async () => {
    const { calls, state, advance } = breakerWith({ volumeThreshold: 3, errorThresholdPercentage: 50, rollingWindowMs: 1000 });
    await calls('xx');
    await advance(899);
    await calls('x'); // still in the window: 3 calls
    expect(state()).toBe('open');

    const later = breakerWith({ volumeThreshold: 3, errorThresholdPercentage: 50, rollingWindowMs: 1000 });
    await later.calls('xx');
    await later.advance(1000);
    await later.calls('xx'); // the first two are gone: 2 calls
    expect(later.state()).toBe('closed');
    await later.calls('x');
    expect(later.state()).toBe('open');
  });

  it('counts a call when it is sent and its failure when it fails', async () => {
    const { send, end, state, advance } = breakerWith({ volumeThreshold: 2, errorThresholdPercentage: 50, rollingWindowMs: 1000 });
    await send();
    await send();
    await advance(1000); // both calls out of the window, still running
    await end('x');
    await end('x'); // 2 failures in a window of no calls: fewer calls than volumeThreshold
    expect(state()).toBe('closed');
    await send();
    await send();
    await end('x'); // 3 failures of 2 calls
    expect(state()).toBe('open');
  });

  it('refuses calls for resetTimeoutMs, then says it is half-open before any call comes', async () => {
    const { calls, state, advance, changes, send, sent } = breakerWith({
      volumeThreshold: 1,
      errorThresholdPercentage: 1,
      resetTimeoutMs: 300,
    });
    await calls('x');
    await advance(299);
    expect([state(), changes]).toEqual(['open', ['open']]);
    expect(await send()).toBe(false);
    expect(sent()).toBe(1);
    await advance(1);
    expect([state(), changes]).toEqual(['half-open', ['open', 'half-open']]);
  });

  it('lets one probe through when half-open and refuses the rest while it runs; any outcome it does not count closes it', async () => {
    const { calls, state, advance, changes, send, end } = breakerWith({
      volumeThreshold: 1,
      errorThresholdPercentage: 1,
      resetTimeoutMs: 300,
    });
    await calls('x');
    await advance(300);
    expect(await send()).toBe(true); // the probe
    expect(state()).toBe('half-open');
    expect(await send()).toBe(false);
    await end('.');
    expect([state(), changes]).toEqual(['closed', ['open', 'half-open', 'closed']]);
    expect(await send()).toBe(true);
    expect(vi.getTimerCount()).toBe(2); // only the two breakers' bucket rotations: no reset timer left
  });

  it("closes on a probe's failure it does not count (a 404), as on an answer", async () => {
    const { calls, state, advance, send, end } = breakerWith({ volumeThreshold: 1, errorThresholdPercentage: 1, resetTimeoutMs: 300 });
    await calls('x');
    await advance(300);
    expect(await send()).toBe(true);
    await end('4');
    expect(state()).toBe('closed');
  });

  it("re-opens for another resetTimeoutMs on a probe's counted failure, whatever the window holds", async () => {
    const { calls, state, advance, changes } = breakerWith({
      volumeThreshold: 3,
      errorThresholdPercentage: 50,
      resetTimeoutMs: 2000,
      rollingWindowMs: 1000,
    });
    await calls('xxx');
    await advance(2000); // the window has forgotten them
    await calls('x'); // one call in the window, fewer than volumeThreshold: a half-open circuit re-opens all the same
    expect(changes).toEqual(['open', 'half-open', 'open']);
    await advance(1999);
    expect(state()).toBe('open');
    await advance(1);
    expect(state()).toBe('half-open');
  });

  it('hears the outcome of a call sent before it opened like that of the probe: an answer closes it once half-open', async () => {
    const { send, end, calls, state, advance, changes } = breakerWith({
      volumeThreshold: 1,
      errorThresholdPercentage: 1,
      resetTimeoutMs: 300,
    });
    await send();
    await send(); // two calls still running
    await calls('x'); // ends the oldest, with a counted failure: open
    expect(state()).toBe('open');
    await end('.'); // open: the second one's answer changes nothing
    expect(state()).toBe('open');
    await send().then((wasSent) => expect(wasSent).toBe(false));
    await advance(300);
    await end('.'); // half-open, its probe not sent: the third one's answer closes it
    expect(changes).toEqual(['open', 'half-open', 'closed']);
  });

  it("keeps the window's counts when it closes: a closed circuit whose window still fails re-opens at its next counted failure", async () => {
    const { calls, advance, changes } = breakerWith({ volumeThreshold: 2, errorThresholdPercentage: 50, resetTimeoutMs: 1000 });
    await calls('xx');
    await advance(1000);
    await calls('.'); // the probe: closed, with 2 failures of 3 calls in the window
    await calls('x'); // 3 of 4
    expect(changes).toEqual(['open', 'half-open', 'closed', 'open']);
  });

  it('once shut down refuses every call, reads as closed, tells nobody and leaves no timer behind', async () => {
    const { send, calls, end, state, advance, changes, guarded } = breakerWith({ volumeThreshold: 1, errorThresholdPercentage: 1 });
    await send();
    await calls('x');
    await guarded.close();
    expect(state()).toBe('closed');
    expect(vi.getTimerCount()).toBe(0);
    expect(await send()).toBe(false);
    await end('x');
    await advance(60_000);
    expect(changes).toEqual(['open']);
  });
});
