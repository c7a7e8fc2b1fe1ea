// The upstream budget around a request: after the fan-out estimate and before execution, the
// estimate is reserved, or the request is refused with RATE_LIMITED and no upstream call; when
// execution ends, the reservation is settled to the calls the request really made (cache hits and
// waits for another request's call cost nothing). `x-upstream-budget: 1` adds what is left of each
// window to the response (`extensions.upstreamBudget`).
import { finalAsyncIterator, isAsyncIterable, type Plugin } from 'graphql-yoga';
import { callerKey } from '../caller.ts';
import type { GatewayContext } from '../context.ts';
import { gatewayError } from '../errors/graphql-errors.ts';
import type { TakeOutcome, UpstreamBudget, WindowReport } from './upstream-budget.ts';

/** Asks for what is left of the budget in `extensions.upstreamBudget`. */
const BUDGET_HEADER = 'x-upstream-budget';

interface BudgetPlugin {
  plugin: Plugin;
  /** A subscription poll in its own context: it reserves one call, or is refused with RATE_LIMITED like a request. */
  poll<T>(key: string, context: GatewayContext, run: () => Promise<T>): Promise<T>;
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
  /** Reserves the request's estimate under its key; undefined when it will make no upstream call. */
  const reserve = async (request: Request, estimate: number) => {
    const key = callerKey(request);
    // No key, or no call to make (introspection, `{ __typename }`): never refused, and no counter is
    // made for its key (made-up keys would push real callers' counters out).
    if (key === null || estimate === 0) return undefined;
    const outcome = await take(key, estimate);
    reports.set(request, outcome.report);
    return { key, outcome };
  };

  const plugin: Plugin = {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as unknown as GatewayContext & { request: Request };
      const { request } = context;
      const estimate = estimateOf(context) ?? 0;
      const reserved = await reserve(request, estimate);
      if (!reserved) return;
      const { key, outcome } = reserved;
      if (!outcome.taken) {
        setResultAndStopExecution({ errors: [refusal(outcome, estimate)] });
        return;
      }
      return {
        async onExecuteDone({ result, setResult }) {
          // An incremental answer (@defer/@stream) is settled once its last payload is sent, or its client left.
          if (isAsyncIterable(result)) {
            setResult(finalAsyncIterator(result, () => void budget.settle(outcome.ticket, callsMade(context))));
            return;
          }
          const settled = budget.settle(outcome.ticket, callsMade(context));
          if (!wantsReport(request)) return;
          await settled;
          reports.set(request, await budget.report(key));
        },
      };
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

function refusal(outcome: Extract<TakeOutcome, { taken: false }>, estimate: number) {
  const { retryAfterSeconds: retryAfter, refusing } = outcome;
  if (retryAfter === undefined) {
    return gatewayError(
      'RATE_LIMITED',
      `This operation may make ${estimate} upstream calls, more than this key's whole upstream budget of ${refusing.limit} per ` +
        `${refusing.per}: it cannot run under it. Ask for smaller pages, fewer nested lists or fewer records by id.`,
      { limit: 'upstreamBudget', reason: 'OVER_WINDOW_LIMIT' },
    );
  }
  return gatewayError(
    'RATE_LIMITED',
    `This key's upstream budget is used up for now: the operation may make ${estimate} upstream calls, and ${refusing.remaining} of ` +
      `${refusing.limit} per ${refusing.per} are left. Retry after ${retryAfter} ${retryAfter === 1 ? 'second' : 'seconds'}.`,
    { retryAfter, limit: 'upstreamBudget' },
  );
}
