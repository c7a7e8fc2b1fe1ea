// Refuses, before execution and so before any upstream call, an operation whose fan-out estimate
// is over the budget.
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../graphql-errors.ts';
import { estimateUpstreamCalls } from './fan-out.ts';
import { operationMemo } from './operation-memo.ts';

/** `onEstimate`: told each operation's estimate, by its context, before it is refused or admitted (the gateway notes it once for the upstream budget, admission control and `x-cost`). */
export function fanOutBudgetPlugin(
  budget: number,
  maxLookupScanPages: number,
  onEstimate?: (context: object, estimate: number) => void,
): Plugin {
  const estimateOf = operationMemo((args) =>
    estimateUpstreamCalls(args.schema, args.document, args.operationName, args.variableValues, { maxLookupScanPages }),
  );

  return {
    onExecute({ args, context, setResultAndStopExecution }) {
      const estimate = estimateOf(args);
      onEstimate?.(context, estimate);
      if (estimate > budget) {
        setResultAndStopExecution({
          errors: [
            gatewayError(
              'QUERY_TOO_COMPLEX',
              `This operation could make ${estimate} upstream calls; the budget is ${budget}. Ask for smaller pages, fewer nested lists or fewer records by id.`,
              { limit: 'maxUpstreamCalls', estimate, budget },
            ),
          ],
        });
      }
    },
  };
}
