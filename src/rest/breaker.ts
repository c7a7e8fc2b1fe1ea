// One circuit breaker: its state (closed, open, half-open) and the rolling window of calls and
// counted failures that opens it. src/rest/circuit-breaker.ts decides what a breaker guards and
// which failures it counts; this file only keeps the count.
//
// It re-creates what the gateway used of opossum 9 (lib/circuit.js, lib/status.js), which it
// replaces because opossum cost ~2.3% of the gateway's CPU and ~46 KB of allocation per dashboard
// (21 calls, two breakers each): every fire() made promises and closures, emitted events and went
// through a listener per counter. Here a call costs a clock read and two counter increments per
// breaker, and its outcome one call per breaker:
// - the window is `rollingWindowMs` split into 10 buckets (rollingCountBuckets); a call counts as a
//   fire in the bucket current when it is sent, a counted failure in the bucket current when it
//   fails; buckets rotate every `rollingWindowMs / 10` ms from the breaker's creation (opossum's
//   setInterval, here worked out from the clock when a call comes), so a count is forgotten 9 to 10
//   tenths of the window after it was made;
// - after a counted failure, a closed circuit opens when its window holds at least
//   `volumeThreshold` fires and `failures / fires * 100` is above (not equal to)
//   `errorThresholdPercentage`: opossum's fail(), to the same floating-point expression;
// - an open circuit refuses calls; `resetTimeoutMs` after it opened, a timer (one per opening, unref'd)
//   makes it half-open and says so; the next call is its one probe, and calls are refused again
//   until a call's outcome closes or re-opens it;
// - while half-open, any outcome the breaker does not count (an answer, or a failure its owner does
//   not count) closes it, and a counted failure re-opens it for another `resetTimeoutMs`, whatever
//   the window holds; this holds for any call that ends then, the probe or one sent before the
//   circuit opened. Closing or opening leaves the window's counts as they are.

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface BreakerSettings {
  errorThresholdPercentage: number;
  volumeThreshold: number;
  resetTimeoutMs: number;
  rollingWindowMs: number;
}

/** Time for a breaker: the system's, or a test's own. */
export interface BreakerClock {
  /** Milliseconds, never going back. */
  now(): number;
  /** Runs `task` once, `ms` from now, without keeping the process alive; the handle is for `cancel`. */
  after(ms: number, task: () => void): unknown;
  cancel(handle: unknown): void;
}

const systemClock: BreakerClock = {
  now: () => performance.now(),
  after: (ms, task) => setTimeout(task, ms).unref(),
  cancel: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** opossum's rollingCountBuckets (its default, which the gateway kept). */
const BUCKETS = 10;

export class Breaker {
  private current: CircuitState = 'closed';
  /** Half-open, and its one probe not sent yet (opossum's pendingClose). */
  private probeDue = false;
  private shut = false;
  private timer: unknown;

  private readonly bucketMs: number;
  private readonly startedAt: number;
  /** Buckets since `startedAt` of the current one; bucket `epoch % BUCKETS` holds its counts. */
  private epoch = 0;
  private readonly fires = new Float64Array(BUCKETS);
  private readonly failures = new Float64Array(BUCKETS);
  private windowFires = 0;
  private windowFailures = 0;

  constructor(
    private readonly settings: BreakerSettings,
    /** Told of every change of state, after it is made. */
    private onChange: (state: CircuitState) => void,
    private readonly clock: BreakerClock = systemClock,
  ) {
    // opossum: setInterval(rotate, Math.floor(window / buckets)), and Node runs a 0 ms interval every 1 ms.
    this.bucketMs = Math.max(1, Math.floor(settings.rollingWindowMs / BUCKETS));
    this.startedAt = clock.now();
  }

  /** What states, metrics and readiness report; a shut-down breaker reads as closed. */
  get state(): CircuitState {
    return this.shut ? 'closed' : this.current;
  }

  /** The calls and counted failures the window holds now. */
  get window(): { fires: number; failures: number } {
    this.roll();
    return { fires: this.windowFires, failures: this.windowFailures };
  }

  /** Open, half-open with its probe already sent, or shut down: a call now must not be sent. */
  refuses(): boolean {
    return this.shut || (this.current !== 'closed' && !this.probeDue);
  }

  /** A call is sent (ask `refuses()` first): counted in the window; if half-open, it is the probe. */
  fire(): void {
    this.probeDue = false;
    const bucket = this.roll();
    this.fires[bucket] = (this.fires[bucket] ?? 0) + 1;
    this.windowFires += 1;
  }

  /** A call ended with an outcome this breaker does not count: an answer, or a failure not its own. */
  succeeded(): void {
    if (this.current === 'half-open') this.close();
  }

  /** A call ended with a failure this breaker counts. */
  failed(): void {
    if (this.shut) return;
    const bucket = this.roll();
    this.failures[bucket] = (this.failures[bucket] ?? 0) + 1;
    this.windowFailures += 1;
    // opossum's fail(): a half-open circuit re-opens whatever the window holds (open() does nothing to an open one).
    const { volumeThreshold, errorThresholdPercentage } = this.settings;
    if (
      this.current === 'half-open' ||
      (this.windowFires >= volumeThreshold && (this.windowFailures / this.windowFires) * 100 > errorThresholdPercentage)
    ) {
      this.open();
    }
  }

  /** Refuses every call from now on, and tells nobody of anything: its timer is cleared. */
  shutdown(): void {
    this.shut = true;
    this.onChange = () => {};
    this.cancelTimer();
  }

  /** Moves the window up to now, emptying the buckets that fell out of it; the current bucket's index. */
  private roll(): number {
    const epoch = Math.floor((this.clock.now() - this.startedAt) / this.bucketMs);
    if (epoch > this.epoch) {
      const last = Math.min(epoch, this.epoch + BUCKETS);
      for (let next = this.epoch + 1; next <= last; next++) {
        const bucket = next % BUCKETS;
        this.windowFires -= this.fires[bucket] ?? 0;
        this.windowFailures -= this.failures[bucket] ?? 0;
        this.fires[bucket] = 0;
        this.failures[bucket] = 0;
      }
      this.epoch = epoch;
    }
    return this.epoch % BUCKETS;
  }

  private open(): void {
    if (this.current === 'open') return;
    this.current = 'open';
    this.probeDue = false;
    this.timer = this.clock.after(this.settings.resetTimeoutMs, this.halfOpen);
    this.onChange('open');
  }

  private readonly halfOpen = (): void => {
    this.timer = undefined;
    this.current = 'half-open';
    this.probeDue = true;
    this.onChange('half-open');
  };

  private close(): void {
    this.cancelTimer();
    this.current = 'closed';
    this.probeDue = false;
    this.onChange('closed');
  }

  private cancelTimer(): void {
    if (this.timer === undefined) return;
    this.clock.cancel(this.timer);
    this.timer = undefined;
  }
}
