// How late a time limit may fire in a test. The promise (docs/limits-and-resilience.md) is the
// limit's own timer, plus event-loop delay: on a loaded machine (CI runs several
// spec files at once on 2 cores) the loop's own delay is measured while the test runs and allowed
// for, so the assertion tests the mechanism rather than the machine's load.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const MARGIN_MS = 100;

interface Lateness {
  /** Starts a new measurement (call it before each test). */
  reset(): void;
  /** The loop's worst delay since `reset`, and a small margin. */
  allowedMs(): number;
}

export function lateness(): Lateness {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  return {
    reset: () => delay.reset(),
    allowedMs: () => MARGIN_MS + delay.max / 1e6,
  };
}
