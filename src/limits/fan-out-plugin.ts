// Refuses, before execution and so before any upstream call, an operation that looks up more ids
// than MAX_LOOKUP_IDS or whose fan-out estimate is over the budget.
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors/graphql-errors.ts';
import { estimateOperation } from './fan-out.ts';
import { operationMemo } from './operation-memo.ts';

interface FanOutBudgetOptions {
  /** MAX_UPSTREAM_CALLS. */
  maxCalls: number;
  /** MAX_LOOKUP_IDS: ids in `node`/`nodes(ids:)` and representations in `_entities`, all together. */
  maxLookupIds: number;
  /** MAX_LOOKUP_SCAN_PAGES: what one invite or member lookup can cost. */
  maxLookupScanPages: number;
  /**
   * Told each operation's estimate, by its context, before it is refused or admitted: its upstream
   * calls (the gateway notes them for the upstream budget and `x-cost`) and its weight, those calls
   * plus the lookups answered without one (admission control weighs the request by it, so no
   * operation is free).
   */
  onEstimate?: (context: object, calls: number, weight: number) => void;
}

export function fanOutBudgetPlugin({ maxCalls, maxLookupIds, maxLookupScanPages, onEstimate }: FanOutBudgetOptions): Plugin {
  const estimateOf = operationMemo((args) =>
    estimateOperation(args.schema, args.document, args.operationName, args.variableValues, { maxLookupScanPages }),
  );

  return {
    onExecute({ args, context, setResultAndStopExecution }) {
      const { calls, lookupIds, localLookups } = estimateOf(args);
      onEstimate?.(context, calls, calls + localLookups);
      if (lookupIds > maxLookupIds) {
        setResultAndStopExecution({
          errors: [
            gatewayError(
              'QUERY_TOO_COMPLEX',
              `This operation looks up ${lookupIds} ids; at most ${maxLookupIds} may be looked up at once (in \`node\`, \`nodes\` and \`_entities\` together). Split it.`,
              { limit: 'maxLookupIds', lookupIds, max: maxLookupIds },
            ),
          ],
        });
        return;
      }
      if (calls > maxCalls) {
        setResultAndStopExecution({
          errors: [
            gatewayError(
              'QUERY_TOO_COMPLEX',
              `This operation could make ${calls} upstream calls; the budget is ${maxCalls}. Ask for smaller pages, fewer nested lists or fewer records by id.`,
              { limit: 'maxUpstreamCalls', estimate: calls, budget: maxCalls },
            ),
          ],
        });
      }
    },
  };
}
