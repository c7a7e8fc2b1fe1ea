// The orchestrator's side of the upstream's control endpoints (src/reference-api/control.ts).
import type { FaultSettings } from '../../src/reference-api/faults.ts';
import type { TrafficStats } from '../../src/reference-api/traffic.ts';

export function upstreamControl(upstreamUrl: string) {
  const call = async <T>(path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${upstreamUrl}/__control/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = (await response.json()) as T;
    if (!response.ok) throw new Error(`upstream /__control/${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  return {
    stats: (withIds = false) => call<TrafficStats>(withIds ? 'stats?ids=1' : 'stats'),
    reset: () => call<{ ok: true }>('reset', {}),
    configure: (settings: Partial<FaultSettings>) => call<FaultSettings>('config', settings),
  };
}

/** Upstream calls per answered query: the calls carrying each answered request's id. */
export function callsPerAnsweredQuery(stats: TrafficStats, answeredIds: readonly string[]) {
  const perId = stats.perRequestId ?? {};
  const counts = answeredIds.map((id) => perId[id] ?? 0);
  const histogram: Record<string, number> = {};
  for (const c of counts) histogram[c] = (histogram[c] ?? 0) + 1;
  const total = counts.reduce((a, b) => a + b, 0);
  return {
    /** Σ calls of answered queries ÷ answered queries. */
    mean: counts.length ? total / counts.length : Number.NaN,
    min: counts.length ? counts.reduce((a, b) => Math.min(a, b)) : Number.NaN,
    max: counts.length ? counts.reduce((a, b) => Math.max(a, b)) : Number.NaN,
    /** How many answered queries made how many calls. */
    histogram,
    /** Every upstream call of the round ÷ answered queries (includes calls of queries cut off when the round ended). */
    raw: answeredIds.length ? stats.calls / answeredIds.length : Number.NaN,
  };
}
