// The budget's window semantics: a sliding window approximated from two fixed ones, as Cloudflare and
// others count rate limits. The calls counted at a moment are the current fixed window's plus the
// previous one's weighted by how much of it the sliding window still covers; the real upstream
// (DRF's throttles) keeps an exact sliding log, which this follows closely at a fraction of the cost.

import type { BudgetWindow } from '../config/upstream-budget.ts';
import type { BudgetWindowCheck, WindowCounts } from '../store/shared-store.ts';

export function windowAt(window: BudgetWindow, now: number): BudgetWindowCheck {
  const index = Math.floor(now / window.windowMs);
  const elapsed = (now - index * window.windowMs) / window.windowMs;
  return { windowMs: window.windowMs, index, limit: window.limit, previousWeight: 1 - elapsed };
}

/** Calls still allowed in this window now. */
export function remaining(window: BudgetWindowCheck, counts: WindowCounts): number {
  return Math.max(0, Math.floor(window.limit - counts.current - counts.previous * window.previousWeight));
}

/**
 * How long until `amount` more calls (at most the window's limit) fit, if no other call is made
 * meanwhile: the previous window's share fades through the current one, and the current one's
 * through the next.
 */
export function waitMs(window: BudgetWindowCheck, counts: WindowCounts, amount: number, now: number): number {
  const room = window.limit - amount;
  const start = window.index * window.windowMs;
  if (counts.current <= room) {
    if (counts.previous === 0) return 0;
    const fadedEnough = 1 - (room - counts.current) / counts.previous;
    return Math.max(0, start + fadedEnough * window.windowMs - now);
  }
  const fadedEnough = 1 - room / counts.current;
  return start + window.windowMs * (1 + fadedEnough) - now;
}
