// `x-cost: 1` adds `extensions.cost { estimated, actual, max }` to the answer (contract: Cost
// directives, Reporting), in the names routers use: the fan-out estimate, the upstream requests
// this request really sent, and MAX_UPSTREAM_CALLS. A refusal by the fan-out budget carries it too.
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import type { UpstreamCall } from '../upstream/transport/request-transport.ts';

const COST_HEADER = 'x-cost';

export interface CostReport {
  /** The fan-out estimate; 0 when the operation was refused before it was estimated (parse, validation, shape limits). */
  estimated: number;
  /** Upstream requests sent: each attempt of a retried call; none for a cache hit, a coalesced call or a call never sent. */
  actual: number;
  /** MAX_UPSTREAM_CALLS. */
  max: number;
}

interface CostOptions {
  /** MAX_UPSTREAM_CALLS. */
  max: number;
  /** The fan-out estimate noted for an execution's context, refused or not. */
  estimateOf(context: object): number | undefined;
}

interface ExecutionContext {
  request?: Request;
  upstreamCalls?: readonly UpstreamCall[];
}

export function costExtensionPlugin({ max, estimateOf }: CostOptions): Plugin {
  const executions = new WeakMap<Request, ExecutionContext>();
  const reportOf = (context: ExecutionContext | undefined): CostReport => ({
    estimated: (context && estimateOf(context)) ?? 0,
    actual: sentRequests(context?.upstreamCalls ?? []),
    max,
  });

  return {
    onExecute({ args }) {
      const context = args.contextValue as ExecutionContext;
      if (context.request?.headers.get(COST_HEADER)?.trim() === '1') executions.set(context.request, context);
    },
    onResultProcess({ request, result, setResult }) {
      // A subscription's events come from polls its subscribers share, not from this request's calls.
      if (request.headers.get(COST_HEADER)?.trim() !== '1' || Array.isArray(result) || isAsyncIterable(result)) return;
      setResult({ ...result, extensions: { ...result.extensions, cost: reportOf(executions.get(request)) } });
    },
  };
}

function sentRequests(calls: readonly UpstreamCall[]): number {
  let sent = 0;
  for (const call of calls) if (!call.source && call.sent) sent += call.attempts;
  return sent;
}
