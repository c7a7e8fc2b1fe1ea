// Counters of what the server was sent and what it answered, for the control endpoints (control.ts):
// a benchmark reads them to check calls per query, calls without a valid key, and that no write
// reached the server twice (writes are counted per `x-request-id`). Only kept with the `control`
// option: the counts per request id grow with every request.
import { type Delivery, FAULT_KINDS, type FaultKind } from './faults.ts';

export interface TrafficStats {
  /** Requests to /api since the last reset. */
  calls: number;
  /** Of those, the ones answered 401 (no key, or not one the server knows). */
  badAuth: number;
  /** Statuses the clients saw (a dropped connection counts none). */
  byStatus: Record<string, number>;
  faults: Record<FaultKind, number>;
  /** Writes (any method but GET and HEAD) received, and how many request ids sent more than one. */
  writes: number;
  requestIdsWithRepeatedWrites: number;
  /** TCP connections accepted (the control endpoints' own included): a client whose pool keeps its sockets opens few. */
  connections: number;
  /** Calls per `x-request-id` (only when asked for); calls without one count under "". */
  perRequestId?: Record<string, number>;
}

interface CountedCall {
  method: string;
  requestId: string;
  /** The status the server's answer had, before any fault replaced it. */
  status: number;
}

export class TrafficCounters {
  private totals = emptyTotals();
  private callsPerRequestId = new Map<string, number>();
  private writesPerRequestId = new Map<string, number>();

  countConnection(): void {
    this.totals.connections += 1;
  }

  countCall(call: CountedCall, delivery: Delivery): void {
    const totals = this.totals;
    totals.calls += 1;
    this.callsPerRequestId.set(call.requestId, (this.callsPerRequestId.get(call.requestId) ?? 0) + 1);
    if (call.status === 401) totals.badAuth += 1;
    if (call.method !== 'GET' && call.method !== 'HEAD') {
      totals.writes += 1;
      const writes = (this.writesPerRequestId.get(call.requestId) ?? 0) + 1;
      this.writesPerRequestId.set(call.requestId, writes);
      if (writes === 2) totals.requestIdsWithRepeatedWrites += 1;
    }
    if (delivery.fault) totals.faults[delivery.fault] += 1;
    if (delivery.status !== null) totals.byStatus[delivery.status] = (totals.byStatus[delivery.status] ?? 0) + 1;
  }

  stats(withRequestIds: boolean): TrafficStats {
    const { faults, byStatus, ...counts } = this.totals;
    return {
      ...counts,
      byStatus: { ...byStatus },
      faults: { ...faults },
      ...(withRequestIds && { perRequestId: Object.fromEntries(this.callsPerRequestId) }),
    };
  }

  reset(): void {
    this.totals = emptyTotals();
    this.callsPerRequestId = new Map();
    this.writesPerRequestId = new Map();
  }
}

function emptyTotals(): Omit<TrafficStats, 'perRequestId'> {
  const faults = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  return { calls: 0, badAuth: 0, byStatus: {}, faults, writes: 0, requestIdsWithRepeatedWrites: 0, connections: 0 };
}
