// One breaker's state machine and rolling window (src/rest/breaker.ts), on a clock the test moves:
// the boundaries one by one, then every sequence of calls, outcomes and waits against a reference
// written the way opossum 9 (which the breaker replaced) keeps its count: ten bucket objects shifted
// by a timer and summed when read. (When the breaker was written, the same scripts were also run
// against opossum 9 itself under fake timers: 3000 of them agreed on every state, refusal, change and
// window count.) The breakers guarding the gateway's calls, over HTTP: test/limits/resilience.spec.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Breaker, type BreakerClock, type BreakerSettings, type CircuitState } from '../../src/rest/breaker.ts';

/** Time that moves only when told, running each task when its time comes. */
class TestClock implements BreakerClock {
  private time = 0;
  private tasks: { at: number; task: () => void }[] = [];

  now(): number {
    return this.time;
  }
  after(ms: number, task: () => void): unknown {
    const entry = { at: this.time + ms, task };
    this.tasks.push(entry);
    return entry;
  }
  cancel(handle: unknown): void {
    this.tasks = this.tasks.filter((entry) => entry !== handle);
  }
  get pending(): number {
    return this.tasks.length;
  }
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const due = this.tasks.filter((entry) => entry.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.cancel(due);
      this.time = due.at;
      due.task();
    }
    this.time = until;
  }
}

const DEFAULT_SETTINGS: BreakerSettings = {
  errorThresholdPercentage: 50,
  volumeThreshold: 10,
  resetTimeoutMs: 5000,
  rollingWindowMs: 10_000,
};

function breakerWith(settings: Partial<BreakerSettings>) {
  const clock = new TestClock();
  const changes: CircuitState[] = [];
  const breaker = new Breaker({ ...DEFAULT_SETTINGS, ...settings }, (state) => changes.push(state), clock);
  /** Sends calls one after the other, each ending as given: `x` a counted failure, `.` anything else. */
  const calls = (outcomes: string) => {
    for (const outcome of outcomes) {
      expect(breaker.refuses()).toBe(false);
      breaker.fire();
      if (outcome === 'x') breaker.failed();
      else breaker.succeeded();
    }
  };
  return { breaker, clock, changes, calls };
}

describe('a breaker', () => {
  it('opens once its window holds volumeThreshold calls, not one call before', () => {
    const { breaker, calls } = breakerWith({ volumeThreshold: 4, errorThresholdPercentage: 1 });
    calls('xxx');
    expect(breaker.state).toBe('closed');
    calls('x');
    expect(breaker.state).toBe('open');
    expect(breaker.refuses()).toBe(true);
  });

  it('opens only above errorThresholdPercentage, and only after a counted failure', () => {
    const { breaker, calls } = breakerWith({ volumeThreshold: 4, errorThresholdPercentage: 50 });
    calls('...xxx'); // 3 of 6: exactly 50%
    expect(breaker.state).toBe('closed');
    calls('x'); // 4 of 7
    expect(breaker.state).toBe('open');

    const another = breakerWith({ volumeThreshold: 4, errorThresholdPercentage: 50 });
    another.calls('xxx.'); // 75% of 4 calls, but the fourth was not a failure
    expect(another.breaker.state).toBe('closed');
    another.calls('x');
    expect(another.breaker.state).toBe('open');
  });

  it('compares the percentage as opossum did, in floating point: 7 failures in 100 calls are above 7%', () => {
    const { breaker, calls } = breakerWith({ volumeThreshold: 100, errorThresholdPercentage: 7 });
    calls(`${'.'.repeat(93)}xxxxxx`);
    expect(breaker.state).toBe('closed');
    calls('x'); // 7 / 100 * 100 is 7.000000000000001
    expect(breaker.state).toBe('open');
  });

  it('forgets calls 9 to 10 tenths of the window after they were made', () => {
    const { breaker, clock, calls } = breakerWith({ volumeThreshold: 3, errorThresholdPercentage: 50, rollingWindowMs: 1000 });
    calls('xx');
    clock.advance(899);
    calls('x'); // still in the window: 3 calls
    expect(breaker.state).toBe('open');

    const later = breakerWith({ volumeThreshold: 3, errorThresholdPercentage: 50, rollingWindowMs: 1000 });
    later.calls('xx');
    later.clock.advance(1000);
    later.calls('xx'); // the first two are gone: 2 calls
    expect(later.breaker.state).toBe('closed');
    later.calls('x');
    expect(later.breaker.state).toBe('open');
  });

  it('counts a call when it is sent and its failure when it fails', () => {
    const { breaker, clock } = breakerWith({ volumeThreshold: 2, errorThresholdPercentage: 50, rollingWindowMs: 1000 });
    breaker.fire();
    breaker.fire();
    clock.advance(1000); // both calls out of the window, still running
    breaker.failed();
    breaker.failed(); // 2 failures in a window of no calls: fewer calls than volumeThreshold
    expect(breaker.state).toBe('closed');
    breaker.fire();
    breaker.fire();
    breaker.failed(); // 3 failures of 2 calls
    expect(breaker.state).toBe('open');
  });

  it('refuses calls for resetTimeoutMs, then says it is half-open before any call comes', () => {
    const { breaker, clock, changes, calls } = breakerWith({ volumeThreshold: 1, errorThresholdPercentage: 1, resetTimeoutMs: 300 });
    calls('x');
    clock.advance(299);
    expect([breaker.state, breaker.refuses(), changes]).toEqual(['open', true, ['open']]);
    clock.advance(1);
    expect([breaker.state, breaker.refuses(), changes]).toEqual(['half-open', false, ['open', 'half-open']]);
  });

  it('lets one probe through when half-open and refuses the rest while it runs; any outcome it does not count closes it', () => {
    const { breaker, clock, changes, calls } = breakerWith({ volumeThreshold: 1, errorThresholdPercentage: 1, resetTimeoutMs: 300 });
    calls('x');
    clock.advance(300);
    breaker.fire();
    expect([breaker.state, breaker.refuses()]).toEqual(['half-open', true]);
    breaker.succeeded();
    expect([breaker.state, breaker.refuses(), changes]).toEqual(['closed', false, ['open', 'half-open', 'closed']]);
    expect(clock.pending).toBe(0);
  });

  it("re-opens for another resetTimeoutMs on a probe's counted failure, whatever the window holds", () => {
    const { breaker, clock, changes, calls } = breakerWith({
      volumeThreshold: 3,
      errorThresholdPercentage: 50,
      resetTimeoutMs: 2000,
      rollingWindowMs: 1000,
    });
    calls('xxx');
    clock.advance(2000); // the window has forgotten them
    calls('x'); // one call in the window, fewer than volumeThreshold: a half-open circuit re-opens all the same
    expect(changes).toEqual(['open', 'half-open', 'open']);
    clock.advance(1999);
    expect(breaker.state).toBe('open');
    clock.advance(1);
    expect(breaker.state).toBe('half-open');
  });

  it('hears the outcome of a call sent before it opened like that of the probe: an answer closes it once half-open', () => {
    const { breaker, clock, changes, calls } = breakerWith({ volumeThreshold: 1, errorThresholdPercentage: 1, resetTimeoutMs: 300 });
    breaker.fire();
    breaker.fire(); // two calls still running
    calls('x');
    breaker.succeeded(); // open: the first one's answer changes nothing
    expect(breaker.state).toBe('open');
    clock.advance(300);
    breaker.succeeded(); // half-open, its probe not sent: the second one's answer closes it
    expect(changes).toEqual(['open', 'half-open', 'closed']);
  });

  it("keeps the window's counts when it closes: a closed circuit whose window still fails re-opens at its next counted failure", () => {
    const { clock, changes, calls } = breakerWith({ volumeThreshold: 2, errorThresholdPercentage: 50, resetTimeoutMs: 1000 });
    calls('xx');
    clock.advance(1000);
    calls('.'); // the probe: closed, with 2 failures of 3 calls in the window
    calls('x'); // 3 of 4
    expect(changes).toEqual(['open', 'half-open', 'closed', 'open']);
  });

  it('once shut down refuses every call, reads as closed, tells nobody and leaves no timer behind', () => {
    const { breaker, clock, changes, calls } = breakerWith({ volumeThreshold: 1, errorThresholdPercentage: 1 });
    breaker.fire();
    calls('x');
    expect(clock.pending).toBe(1);
    breaker.shutdown();
    expect([breaker.state, breaker.refuses(), clock.pending]).toEqual(['closed', true, 0]);
    breaker.failed();
    clock.advance(60_000);
    expect(changes).toEqual(['open']);
  });
});

/** opossum 9's bookkeeping as it wrote it (lib/status.js, lib/circuit.js), with its timers run by the test. */
class Reference {
  state: CircuitState = 'closed';
  changes: CircuitState[] = [];
  private pendingClose = false;
  private readonly window = Array.from({ length: 10 }, () => ({ fires: 0, failures: 0 }));
  private time = 0;
  private readonly bucketMs: number;
  private nextRotation: number;
  private halfOpenAt: number | undefined;

  constructor(private readonly settings: BreakerSettings) {
    this.bucketMs = Math.max(1, Math.floor(settings.rollingWindowMs / 10));
    this.nextRotation = this.bucketMs;
  }
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const next = Math.min(this.nextRotation, this.halfOpenAt ?? Number.POSITIVE_INFINITY);
      if (next > until) break;
      this.time = next;
      if (next === this.halfOpenAt) {
        this.halfOpenAt = undefined;
        this.state = 'half-open';
        this.pendingClose = true;
        this.changes.push('half-open');
      } else {
        this.window.pop();
        this.window.unshift({ fires: 0, failures: 0 });
        this.nextRotation += this.bucketMs;
      }
    }
    this.time = until;
  }
  get stats(): { fires: number; failures: number } {
    return {
      fires: this.window.reduce((sum, bucket) => sum + bucket.fires, 0),
      failures: this.window.reduce((sum, bucket) => sum + bucket.failures, 0),
    };
  }
  refuses(): boolean {
    return this.state !== 'closed' && !this.pendingClose;
  }
  fire(): void {
    this.window[0]!.fires++;
    this.pendingClose = false;
  }
  success(): void {
    if (this.state === 'half-open') {
      this.halfOpenAt = undefined;
      this.state = 'closed';
      this.pendingClose = false;
      this.changes.push('closed');
    }
  }
  failure(): void {
    this.window[0]!.failures++;
    const { fires, failures } = this.stats;
    if (fires < this.settings.volumeThreshold && this.state !== 'half-open') return;
    const errorRate = (failures / fires) * 100;
    if ((errorRate > this.settings.errorThresholdPercentage || this.state === 'half-open') && this.state !== 'open') {
      this.state = 'open';
      this.pendingClose = false;
      this.halfOpenAt = this.time + this.settings.resetTimeoutMs;
      this.changes.push('open');
    }
  }
}

type Step =
  | { kind: 'wait'; ms: number }
  | { kind: 'call' } // left running
  | { kind: 'end'; counted: boolean } // of the call running longest
  | { kind: 'call and end'; counted: boolean };

const waits = (max: number, min = 0) => fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min, max }) });

/** Settings, and steps whose waits are mostly fractions of the window, so that calls fall on every side of each boundary. */
const scripts = fc
  .record({
    // Percentages a few calls can reach exactly, besides any.
    errorThresholdPercentage: fc.oneof(fc.constantFrom(20, 25, 40, 50, 60, 75, 80, 100), fc.integer({ min: 1, max: 100 })),
    volumeThreshold: fc.integer({ min: 1, max: 6 }),
    resetTimeoutMs: fc.integer({ min: 1, max: 2000 }),
    rollingWindowMs: fc.integer({ min: 1, max: 1000 }),
  })
  .chain((chosen) =>
    fc.tuple(
      fc.constant(chosen),
      fc.array(
        fc.oneof(
          { weight: 3, arbitrary: waits(Math.ceil(chosen.rollingWindowMs / 5)) },
          { weight: 1, arbitrary: waits(Math.ceil(chosen.rollingWindowMs * 1.2)) },
          { weight: 1, arbitrary: waits(chosen.resetTimeoutMs + 1, chosen.resetTimeoutMs - 1) }, // about until half-open
          { weight: 2, arbitrary: fc.record({ kind: fc.constant('call' as const) }) },
          { weight: 2, arbitrary: fc.record({ kind: fc.constant('end' as const), counted: fc.boolean() }) },
          { weight: 3, arbitrary: fc.record({ kind: fc.constant('call and end' as const), counted: fc.boolean() }) },
        ),
        { maxLength: 200, size: 'max' },
      ),
    ),
  );

describe('a breaker against opossum’s bookkeeping', () => {
  it('refuses the same calls and changes state at the same moments, over any calls, outcomes and waits', () => {
    fc.assert(
      fc.property(scripts, ([chosen, script]: [BreakerSettings, Step[]]) => {
        const { breaker, clock, changes } = breakerWith(chosen);
        const reference = new Reference(chosen);
        let running = 0; // calls sent and not ended: which one ends does not matter to either
        const call = () => {
          expect(breaker.refuses()).toBe(reference.refuses());
          if (reference.refuses()) return false;
          breaker.fire();
          reference.fire();
          running += 1;
          return true;
        };
        const end = (counted: boolean) => {
          if (running === 0) return;
          running -= 1;
          if (counted) {
            breaker.failed();
            reference.failure();
          } else {
            breaker.succeeded();
            reference.success();
          }
        };
        for (const step of script) {
          if (step.kind === 'wait') {
            clock.advance(step.ms);
            reference.advance(step.ms);
          } else if (step.kind === 'call') call();
          else if (step.kind === 'end') end(step.counted);
          else if (call()) end(step.counted);
          expect({ state: breaker.state, refuses: breaker.refuses(), changes, window: breaker.window }).toEqual({
            state: reference.state,
            refuses: reference.refuses(),
            changes: reference.changes,
            window: reference.stats,
          });
        }
      }),
      { numRuns: 300 },
    );
  });
});
