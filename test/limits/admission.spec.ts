// The admission semaphore itself (src/limits/admission.ts), over random interleavings of callers,
// weights and releases: the weight in flight never passes the capacity, every queued request ends
// admitted once weight comes back, the queue never holds more than its bound, and a caller with
// one request waiting is served before a flooding caller's queue drains. Over HTTP: overload.spec.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAdmission, type Grant, type Refusal } from '../../src/limits/admission.ts';

const LONG = 60_000;
const settled = () => new Promise((resolve) => setImmediate(resolve));

const steps = fc.array(
  fc.oneof(
    fc.record({ acquire: fc.constantFrom('a', 'b', 'c'), weight: fc.integer({ min: 0, max: 12 }) }),
    fc.record({ release: fc.nat() }),
  ),
  { maxLength: 60 },
);

describe('createAdmission', () => {
  it('never holds more than its capacity, bounds its queue, and admits every waiting request once weight comes back', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 0, max: 5 }), steps, async (capacity, maxQueued, plan) => {
        const admission = createAdmission({ capacity, maxWaitMs: LONG, maxQueued });
        const held: Grant[] = [];
        const outcomes: Promise<Grant | Refusal>[] = [];
        const take = (outcome: Grant | Refusal) => {
          if (!outcome.refused) held.push(outcome);
          return outcome;
        };
        for (const step of plan) {
          if ('acquire' in step) {
            const outcome = admission.acquire(step.acquire, step.weight, LONG);
            outcomes.push(outcome instanceof Promise ? outcome.then(take) : Promise.resolve(take(outcome)));
          } else if (held.length > 0) {
            held.splice(step.release % held.length, 1)[0]?.release();
          }
          await settled();
          const state = admission.state();
          expect(state.inFlight).toBeLessThanOrEqual(capacity);
          expect(state.queued).toBeLessThanOrEqual(maxQueued);
        }
        // Release everything, as often as needed: each waiting request ends admitted, then released.
        while (held.length > 0 || admission.state().queued > 0) {
          for (const grant of held.splice(0)) grant.release();
          await settled();
        }
        const ends = await Promise.all(outcomes);
        for (const end of ends) if (end.refused) expect(['wait_too_long', 'queue_full']).toContain(end.refused);
        expect(admission.state()).toEqual({ capacity, inFlight: 0, queued: 0, callers: 0, topCallerShare: 0 });
      }),
      { numRuns: 200 },
    );
  });

  it("serves a second caller's one waiting request before the flooding caller's queue", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 2, max: 20 }), async (capacity, flood) => {
        const admission = createAdmission({ capacity, maxWaitMs: LONG, maxQueued: 100 });
        const order: string[] = [];
        const grants: Grant[] = [];
        const ask = (caller: string) => {
          const outcome = admission.acquire(caller, 1, LONG);
          if (outcome instanceof Promise)
            void outcome.then((end) => {
              if (end.refused) return;
              order.push(caller);
              grants.push(end);
            });
          else if (!outcome.refused) grants.push(outcome);
        };
        for (let i = 0; i < capacity + flood; i++) ask('flood');
        ask('light');
        await settled();
        // Weight comes back one request at a time.
        while (grants.length > 0) {
          grants.shift()?.release();
          await settled();
        }
        expect(order.indexOf('light')).toBeGreaterThanOrEqual(0);
        // Round robin credits each queue its capacity per turn: at most that many of the flood go first.
        expect(order.indexOf('light')).toBeLessThanOrEqual(capacity);
      }),
      { numRuns: 100 },
    );
  });
});
