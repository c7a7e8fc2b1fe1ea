// An upstream call that has ended holds nothing: no timer of its deadline, no listener on its
// request's signal. Under load, a deadline timer kept until UPSTREAM_TIMEOUT_MS after each call held
// tens of thousands of timers and their closures alive, and fired each of them for nobody.
import { createHook } from 'node:async_hooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.ts';

const QUERY = '{ organizations(first: 5) { nodes { name domains(first: 5) { totalCount } members(first: 5) { totalCount } } } }';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

/** Timers created and not yet cleared or fired, ref'd or not (Node's active-resources list leaves out unref'd ones). */
function watchTimers() {
  const pending = new Set<number>();
  const hook = createHook({
    init(id, type) {
      if (type === 'Timeout') pending.add(id);
    },
    destroy(id) {
      pending.delete(id);
    },
  }).enable();
  return { pending: () => pending.size, stop: () => hook.disable() };
}

it('leaves no timer behind once its request is answered', async () => {
  const warmUp = await harness.runCounting(QUERY);
  expect(warmUp.errors).toBeUndefined();
  expect(warmUp.calls.length).toBeGreaterThan(1);
  const timers = watchTimers();
  const answer = async (times: number) => {
    for (let i = 0; i < times; i++) {
      const { errors, calls } = await harness.runCounting(QUERY);
      expect(errors).toBeUndefined();
      expect(calls.length).toBe(warmUp.calls.length);
    }
    // Destroy hooks run after a timer is cleared, on a later turn.
    await new Promise((resolve) => setImmediate(resolve));
    return timers.pending();
  };
  try {
    // Timers libraries keep (a breaker's window, pooled sockets' keep-alive) are there after the
    // first requests; the calls' own must not add up with more of them.
    const afterTen = await answer(10);
    const afterFifty = await answer(40);
    expect(afterFifty - afterTen).toBeLessThanOrEqual(2);
  } finally {
    timers.stop();
  }
});
