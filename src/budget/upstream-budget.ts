// UPSTREAM_BUDGET: the upstream calls each key really makes, counted per caller tag in the store
// (Redis when CACHE names one, so every instance shares it; else this instance's memory; this
// instance's memory too while Redis is away). A request reserves its fan-out estimate before it
// runs, atomically, or is refused; when it ends, the reservation is settled to the calls it made.

import { callerTag } from '../caller.ts';
import type { BudgetUnit, BudgetWindow } from '../config/upstream-budget.ts';
import type { BudgetWindowAt, BudgetWindowCheck, SharedStore, WindowCounts } from '../store/shared-store.ts';
import { remaining, waitMs, windowAt } from './sliding-window.ts';

interface UpstreamBudgetOptions {
  windows: readonly BudgetWindow[];
  /** Where budgets are counted. */
  store: SharedStore;
  /** This instance's memory, counting while `store` cannot be reached (the same store when it is memory). */
  fallback: SharedStore;
  /** @default Date.now: instances sharing a store share its windows by the wall clock */
  now?: () => number;
}

/** What is left of one window, as `extensions.upstreamBudget` reports it. */
export interface WindowReport {
  per: BudgetUnit;
  limit: number;
  remaining: number;
}

/** A reservation, settled when its request ends. */
export interface BudgetTicket {
  store: SharedStore;
  tag: string;
  /** The windows the reservation was counted in. */
  at: BudgetWindowAt[];
  reserved: number;
}

export type TakeOutcome =
  | { taken: true; ticket: BudgetTicket; report: WindowReport[] }
  /** `retryAfterSeconds` undefined: the estimate is over the window's whole limit, and will never fit. */
  | { taken: false; retryAfterSeconds: number | undefined; refusing: WindowReport; report: WindowReport[] };

export interface UpstreamBudget {
  /** Reserves `estimate` calls, or says how long until they fit (never, over a window's whole limit). */
  take(key: string, estimate: number): Promise<TakeOutcome>;
  /** Gives back what the request did not use, or counts what it used beyond its reservation. */
  settle(ticket: BudgetTicket, used: number): Promise<void>;
  /** What is left now. */
  report(key: string): Promise<WindowReport[]>;
}

export function createUpstreamBudget(options: UpstreamBudgetOptions): UpstreamBudget {
  const { windows } = options;
  const now = options.now ?? Date.now;

  /** The store to count in now, and the caller's tag there (the tag is the store's secret's HMAC of the key). */
  const counter = (key: string, away = false) => {
    const store = !away && options.store.available && options.store.secret !== undefined ? options.store : options.fallback;
    return { store, tag: callerTag(store.secret as string, key) };
  };
  const reportOf = (checks: ReturnType<typeof windowAt>[], counts: WindowCounts[]): WindowReport[] =>
    windows.map((window, i) => ({
      per: window.per,
      limit: window.limit,
      remaining: remaining(checks[i] as BudgetWindowCheck, counts[i] as WindowCounts),
    }));

  async function take(key: string, estimate: number, away = false): Promise<TakeOutcome> {
    // The contract refuses an estimate over what is left, so one over a window's whole limit is
    // refused for good: running it would spend more than the window allows.
    const tooSmall = windows.findIndex((window) => estimate > window.limit);
    if (tooSmall >= 0) {
      const report = await reportFor(key);
      return { taken: false, retryAfterSeconds: undefined, refusing: report[tooSmall] as WindowReport, report };
    }
    const { store, tag } = counter(key, away);
    const at = now();
    const checks = windows.map((window) => windowAt(window, at));
    let result: Awaited<ReturnType<SharedStore['takeBudget']>>;
    try {
      result = await store.takeBudget(tag, checks, estimate);
    } catch (error) {
      if (store === options.fallback) throw error;
      return take(key, estimate, true);
    }
    const { taken, counts } = result;
    if (taken) {
      const after = counts.map((count) => ({ ...count, current: count.current + estimate }));
      return { taken, ticket: { store, tag, at: checks, reserved: estimate }, report: reportOf(checks, after) };
    }
    const waits = checks.map((check, i) => waitMs(check, counts[i] as WindowCounts, estimate, at));
    const longest = waits.indexOf(Math.max(...waits));
    const report = reportOf(checks, counts);
    return {
      taken,
      retryAfterSeconds: Math.max(1, Math.ceil((waits[longest] as number) / 1000)),
      refusing: report[longest] as WindowReport,
      report,
    };
  }

  return {
    take: (key, estimate) => take(key, estimate),
    async settle({ store, tag, at, reserved }, used) {
      const unused = reserved - used;
      if (unused === 0) return;
      // Unused calls go back to the windows they were taken from; calls beyond the reservation count now.
      const windowsNow = unused > 0 ? at : windows.map((window) => windowAt(window, now()));
      await store.adjustBudget(tag, windowsNow, -unused).catch(() => undefined);
    },
    report: reportFor,
  };

  async function reportFor(key: string): Promise<WindowReport[]> {
    const read = async (away: boolean) => {
      const { store, tag } = counter(key, away);
      const checks = windows.map((window) => windowAt(window, now()));
      return reportOf(checks, await store.readBudget(tag, checks));
    };
    return read(false).catch(() => read(true));
  }
}
