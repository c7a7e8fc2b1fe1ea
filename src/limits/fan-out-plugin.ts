// Refuses, before execution and so before any upstream call, an operation whose fan-out estimate
// is over the budget.
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors.ts';
import { estimateUpstreamCalls } from './fan-out.ts';

export function fanOutBudgetPlugin(budget: number): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const estimate = estimateUpstreamCalls(args.schema, args.document, args.operationName, args.variableValues);
      if (estimate > budget) {
        setResultAndStopExecution({
          errors: [
            gatewayError(
              'QUERY_TOO_COMPLEX',
              `This operation could make ${estimate} upstream calls; the budget is ${budget}. Ask for smaller pages or fewer nested lists.`,
              { limit: 'maxUpstreamCalls', estimate, budget },
            ),
          ],
        });
      }
    },
  };
}
