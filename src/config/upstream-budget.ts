// UPSTREAM_BUDGET: how many upstream calls one key may make per window, e.g. `480/minute,4800/hour`
// (the real upstream's burst and sustained throttles). Windows are a second, a minute, an hour or a day.

export const BUDGET_UNITS = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
export type BudgetUnit = keyof typeof BUDGET_UNITS;

export interface BudgetWindow {
  /** Upstream calls allowed per window. */
  limit: number;
  per: BudgetUnit;
  windowMs: number;
}

const MAX_LIMIT = 1_000_000_000;

/** The windows of a budget setting, shortest first; throws an Error saying what is wrong. */
export function parseUpstreamBudget(text: string): BudgetWindow[] {
  const windows = text.split(',').map((part): BudgetWindow => {
    const match = /^\s*(\d+)\s*\/\s*([a-z]+)\s*$/i.exec(part);
    const per = match?.[2]?.toLowerCase() as BudgetUnit | undefined;
    const limit = Number(match?.[1]);
    if (!match || per === undefined || !Object.hasOwn(BUDGET_UNITS, per) || limit < 1 || limit > MAX_LIMIT) {
      throw new Error(
        `each part must be <calls>/<second|minute|hour|day> with 1 to ${MAX_LIMIT} calls, like 480/minute (got "${part.trim()}").`,
      );
    }
    return { limit, per, windowMs: BUDGET_UNITS[per] };
  });
  const units = new Set(windows.map((window) => window.per));
  if (units.size !== windows.length) throw new Error('each window (second, minute, hour, day) may appear once.');
  return windows.sort((a, b) => a.windowMs - b.windowMs);
}
