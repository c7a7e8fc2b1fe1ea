// Refuses, before execution and so before any upstream call, an operation whose fan-out estimate
// is over the budget.
import type { DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../graphql-errors.ts';
import { estimateUpstreamCalls } from './fan-out.ts';
import { exceedsDepth } from './json-depth.ts';

/** Distinct operation names and variables remembered per document, and the longest key kept: the
 * cache must stay small whatever variables callers send (Yoga keeps up to 1000 documents). */
const MAX_ESTIMATES_PER_DOCUMENT = 100;
const MAX_KEY_LENGTH = 512;

/** `onEstimate`: told each admitted operation's estimate, by its context (the gateway notes it once for the upstream budget and admission control). */
export function fanOutBudgetPlugin(
  budget: number,
  maxLookupScanPages: number,
  onEstimate?: (context: object, estimate: number) => void,
): Plugin {
  // Yoga's parser cache hands the same document to every request with the same text, and the
  // estimate depends only on it, the operation name and the variables: a dashboard polled again and
  // again is walked once, not once per request.
  const estimates = new WeakMap<DocumentNode, Map<string, number>>();

  return {
    onExecute({ args, context, setResultAndStopExecution }) {
      const key = estimateKey(args.operationName, args.variableValues);
      let byArguments = estimates.get(args.document);
      if (!byArguments) {
        byArguments = new Map();
        estimates.set(args.document, byArguments);
      }
      let estimate = key === undefined ? undefined : byArguments.get(key);
      if (estimate === undefined) {
        estimate = estimateUpstreamCalls(args.schema, args.document, args.operationName, args.variableValues, { maxLookupScanPages });
        if (key !== undefined && byArguments.size < MAX_ESTIMATES_PER_DOCUMENT) byArguments.set(key, estimate);
      }
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
        return;
      }
      onEstimate?.(context, estimate);
    },
  };
}

/**
 * The estimate's cache key, or undefined when it would be too long to keep. Variables nested more
 * than half as deep as that length could not give a short enough key, and are not stringified:
 * JSON.stringify recurses, and these may be any depth (undeclared variables are never checked).
 */
function estimateKey(operationName: string | null | undefined, variables: Record<string, unknown> | null | undefined): string | undefined {
  if (variables && exceedsDepth(variables, MAX_KEY_LENGTH / 2)) return undefined;
  const key = `${operationName ?? ''}\u0000${variables ? JSON.stringify(variables) : ''}`;
  return key.length <= MAX_KEY_LENGTH ? key : undefined;
}
