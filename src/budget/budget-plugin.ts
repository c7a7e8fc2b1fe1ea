// The upstream budget around a request: after the fan-out estimate and before execution, the
// estimate is reserved, or the request is refused with RATE_LIMITED and no upstream call; when
// execution ends, the reservation is settled to the calls the request really made (cache hits and
// waits for another request's call cost nothing). A batch reserves the sum of its operations'
// estimates at once, before any of them runs (src/incremental/batching.ts calls `reserveBatch`), or
// is refused whole; its operations draw from that reservation, which is settled once the batch is
// answered. `x-upstream-budget: 1` adds what is left of each window to the response
// (`extensions.upstreamBudget`).
import { finalAsyncIterator, isAsyncIterable, type Plugin } from 'graphql-yoga';
import { callerKey } from '../caller.ts';
import type { GatewayContext } from '../context.ts';
import { gatewayError } from '../errors/graphql-errors.ts';
import type { BudgetTicket, TakeOutcome, UpstreamBudget, WindowReport } from './upstream-budget.ts';

/** Asks for what is left of the budget in `extensions.upstreamBudget`. */
const BUDGET_HEADER = 'x-upstream-budget';

interface BudgetPlugin {
  plugin: Plugin;
  /** A subscription poll in its own context: it reserves one call, or is refused with RATE_LIMITED like a request. */
  poll<T>(key: string, context: GatewayContext, run: () => Promise<T>): Promise<T>;
  /**
   * Reserves a batch's summed estimate under its key, in one store round trip, before any of its
   * operations runs; throws the refusal (HTTP 400, RATE_LIMITED) when it does not fit.
   */
  reserveBatch(request: Request, estimate: number): Promise<void>;
}

/** `estimateOf`: the fan-out estimate of a request's operation, by its context (src/limits/fan-out-plugin.ts). */
export function upstreamBudgetPlugin(
  budget: UpstreamBudget,
  estimateOf: (context: object) => number | undefined,
  onRefusal?: () => void,
): BudgetPlugin {
  const reports = new WeakMap<Request, WindowReport[]>();
  const wantsReport = (request: Request) => request.headers.get(BUDGET_HEADER)?.trim() === '1';

  /** Takes `estimate` calls from the key's budget, counting a refusal. */
  const take = async (key: string, estimate: number) => {
    const outcome = await budget.take(key, estimate);
    if (!outcome.taken) onRefusal?.();
    return outcome;
  };
  /** Takes `calls` under `key` into `reservation`, noting what is left for the report; the refusal when they do not fit. */
  const reserveInto = async (reservation: Reservation, request: Request, key: string, calls: number, what: 'operation' | 'batch') => {
    const outcome = await take(key, calls);
    reports.set(request, outcome.report);
    if (!outcome.taken) return refusal(outcome, calls, what);
    reservation.add(outcome.ticket);
    return undefined;
  };
  /** Reservations of batches being answered, which their operations draw from. */
  const batches = new WeakMap<Request, Reservation>();

  const plugin: Plugin = {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as unknown as GatewayContext & { request: Request };
      const { request } = context;
      const estimate = estimateOf(context) ?? 0;
      const key = callerKey(request);
      // No key, or no call to make (introspection, `{ __typename }`): never refused, and no counter is
      // made for its key (made-up keys would push real callers' counters out).
      if (key === null || estimate === 0) return;
      const batch = batches.get(request);
      const reservation = batch ?? new Reservation();
      // A batch's operation takes only what the batch's reservation does not cover (a persisted
      // operation whose text was not known before the batch ran); a request on its own takes it all.
      const missing = reservation.draw(context, estimate);
      const refused = missing > 0 ? await reserveInto(reservation, request, key, missing, 'operation') : undefined;
      if (refused) {
        setResultAndStopExecution({ errors: [refused] });
        return;
      }
      if (batch) return; // settled once the whole batch is answered
      return {
        async onExecuteDone({ result, setResult }) {
          // An incremental answer (@defer/@stream) is settled once its last payload is sent, or its client left.
          if (isAsyncIterable(result)) {
            setResult(finalAsyncIterator(result, () => void reservation.settle(budget)));
            return;
          }
          const settled = reservation.settle(budget);
          if (!wantsReport(request)) return;
          await settled;
          reports.set(request, await budget.report(key));
        },
      };
    },
    // A batch's results are all in: what its operations did not use goes back.
    onResultProcess({ request, result }) {
      if (!Array.isArray(result)) return;
      const reservation = batches.get(request);
      if (!reservation) return;
      batches.delete(request);
      void reservation.settle(budget);
    },
    async onExecutionResult({ request, result, setResult }) {
      if (!wantsReport(request) || !result || Symbol.asyncIterator in result) return;
      const key = callerKey(request);
      if (key === null) return;
      const upstreamBudget = reports.get(request) ?? (await budget.report(key));
      setResult({ ...result, extensions: { ...result.extensions, upstreamBudget } });
    },
  };
  return {
    plugin,
    async reserveBatch(request, estimate) {
      const key = callerKey(request);
      if (key === null) return;
      const reservation = new Reservation();
      batches.set(request, reservation);
      if (estimate === 0) return;
      const refused = await reserveInto(reservation, request, key, estimate, 'batch');
      if (refused) {
        batches.delete(request);
        throw refused;
      }
    },
    async poll(key, context, run) {
      const outcome = await take(key, POLL_ESTIMATE);
      if (!outcome.taken) throw refusal(outcome, POLL_ESTIMATE);
      try {
        return await run();
      } finally {
        void budget.settle(outcome.ticket, callsMade(context));
      }
    },
  };
}

/**
 * Calls reserved for one request, or for a whole batch, and the contexts of the operations drawing
 * from them: settled once, to the calls those operations made.
 */
class Reservation {
  private readonly tickets: BudgetTicket[] = [];
  private readonly contexts: GatewayContext[] = [];
  /** Reserved calls no operation has drawn yet. */
  private left = 0;

  add(ticket: BudgetTicket): void {
    this.tickets.push(ticket);
    this.left += ticket.reserved;
  }

  /** Draws an operation's estimate; returns how much of it is not reserved yet. */
  draw(context: GatewayContext, estimate: number): number {
    this.contexts.push(context);
    const drawn = Math.min(this.left, estimate);
    this.left -= drawn;
    return estimate - drawn;
  }

  /** Gives back what was not used (or counts what was used beyond), ticket by ticket, the last taking any excess. */
  settle(budget: UpstreamBudget): Promise<unknown> {
    let used = 0;
    for (const context of this.contexts) used += callsMade(context);
    const last = this.tickets.length - 1;
    return Promise.all(
      this.tickets.map((ticket, i) => {
        const share = i === last ? used : Math.min(used, ticket.reserved);
        used -= share;
        return budget.settle(ticket, share);
      }),
    );
  }
}

/** A poll is one retrieve or list page (a capped page may take more: settling counts them). */
const POLL_ESTIMATE = 1;

/**
 * The upstream calls the request made: sends that may have reached the upstream, and calls still on
 * their way. A call the upstream answered 401 does not count: a key it rejects holds no budget (a
 * made-up key's spent budget would refuse its polls as RATE_LIMITED, which keeps a subscription,
 * instead of letting the upstream's 401 end it).
 */
function callsMade(context: GatewayContext): number {
  let made = context.upstreamCallsInFlight();
  for (const call of context.upstreamCalls) if (!call.source && call.sent && call.status !== 401) made += call.attempts;
  return made;
}

/** A refused batch is refused whole with HTTP 400, as the batch's other refusals (src/incremental/batching.ts). */
function refusal(outcome: Extract<TakeOutcome, { taken: false }>, estimate: number, what: 'operation' | 'batch' = 'operation') {
  const { retryAfterSeconds: retryAfter, refusing } = outcome;
  const http = what === 'batch' ? { http: { status: 400 } } : {};
  if (retryAfter === undefined) {
    return gatewayError(
      'RATE_LIMITED',
      `This ${what} may make ${estimate} upstream calls, more than this key's whole upstream budget of ${refusing.limit} per ` +
        `${refusing.per}: it cannot run under it. Ask for smaller pages, fewer nested lists or fewer records by id.`,
      { limit: 'upstreamBudget', reason: 'OVER_WINDOW_LIMIT', ...http },
    );
  }
  return gatewayError(
    'RATE_LIMITED',
    `This key's upstream budget is used up for now: the ${what} may make ${estimate} upstream calls, and ${refusing.remaining} of ` +
      `${refusing.limit} per ${refusing.per} are left. Retry after ${retryAfter} ${retryAfter === 1 ? 'second' : 'seconds'}.`,
    { retryAfter, limit: 'upstreamBudget', ...http },
  );
}
