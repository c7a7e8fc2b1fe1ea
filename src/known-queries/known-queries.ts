// The queries this gateway has run through Yoga's whole pipeline and found runnable: the query text
// and operation name of each, with its compiled operation and fan-out estimate. Only queries without
// variables are kept: every check before execution (parse, validation, the query limits, argument
// checks, the fan-out estimate) then depends on the text alone and passes again for the same text,
// whoever sends it. The fast path (./fast-path.ts) runs these without the pipeline.
import { type ExecutionArgs, getOperationAST } from 'graphql';
import { type CompiledQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import type { CompiledOperations } from '../compiled-operations.ts';
import { isOperationName } from '../operation-name.ts';

export interface KnownQuery {
  operation: CompiledQuery;
  /** The executed operation's own name (the request log's and the metrics' `operation`). */
  operationName: string | undefined;
  /** Its fan-out estimate: the upstream calls the budget reserves. */
  estimate: number;
  /** The weight admission control gives it: its calls and its lookups without one. */
  weight: number;
}

export interface KnownQueries {
  /** The known query of this text and requested operation name; a hit makes it the most recently used. */
  get(query: string, operationName: string | undefined): KnownQuery | undefined;
  /** Notes each query without variables that passed every check: the last of the plugins that can refuse an execution. */
  recorder: Plugin;
}

interface KnownQueriesOptions {
  /** Queries kept, the least recently used dropped first (FAST_PATH_MAX_QUERIES). */
  max: number;
  operations: CompiledOperations;
  /** The operation's fan-out estimate and admission weight, noted by the fan-out plugin before. */
  estimateOf(context: object): number | undefined;
  weightOf(context: object): number | undefined;
}

export function createKnownQueries({ max, operations, estimateOf, weightOf }: KnownQueriesOptions): KnownQueries {
  // By query text, then requested operation name ('' for none). A hit only stamps its entry: a
  // request's own strings are never stored, so they die young instead of being promoted with the
  // map (re-inserting each hit, as a Map-ordered LRU does, cost a full collection every ~0.7 s).
  const known = new Map<string, Map<string, Entry>>();
  let size = 0;
  let clock = 0;
  const forget = (query: string, name: string) => {
    const byName = known.get(query);
    if (byName?.delete(name)) size -= 1;
    if (byName?.size === 0) known.delete(query);
  };
  const leastRecentlyUsed = () => {
    let oldest: { query: string; name: string; usedAt: number } | undefined;
    for (const [query, byName] of known)
      for (const [name, entry] of byName) if (!oldest || entry.usedAt < oldest.usedAt) oldest = { query, name, usedAt: entry.usedAt };
    return oldest;
  };
  /** A query not known yet (the recorder checks): inserted, the least recently used dropped if full. */
  const remember = (query: string, name: string, entry: KnownQuery) => {
    // Only a query not known yet is inserted, and the map holds few: a scan for the oldest is cheap.
    if (size >= max) {
      const oldest = leastRecentlyUsed();
      if (oldest) forget(oldest.query, oldest.name);
    }
    let byName = known.get(query);
    if (!byName) {
      byName = new Map();
      known.set(query, byName);
    }
    byName.set(name, { ...entry, usedAt: ++clock });
    size += 1;
  };
  return {
    get(query, operationName) {
      const hit = known.get(query)?.get(operationName ?? '');
      if (hit) hit.usedAt = ++clock;
      return hit;
    },
    recorder: {
      onExecute({ args, context }) {
        const { params } = context as YogaInitialContext;
        if (typeof params?.query !== 'string' || !withoutVariables(args)) return;
        const operationName = params.operationName ?? undefined;
        if (operationName !== undefined && !isOperationName(operationName)) return;
        // Known already (a request the fast path could not take, e.g. with x-debug-upstream): nothing to do.
        if (known.get(params.query)?.has(operationName ?? '')) return;
        const operation = operations.of(args);
        const estimate = estimateOf(context);
        const weight = weightOf(context);
        if (!isCompiledQuery(operation) || estimate === undefined || weight === undefined) return;
        const definition = getOperationAST(args.document, operationName);
        if (definition?.operation !== 'query') return;
        remember(params.query, operationName ?? '', { operation, operationName: definition.name?.value, estimate, weight });
      },
    },
  };
}

interface Entry extends KnownQuery {
  /** When it was last asked for, on a counter of lookups. */
  usedAt: number;
}

/** No variables declared and none sent: the document alone decides every check. */
function withoutVariables(args: ExecutionArgs): boolean {
  const sent = args.variableValues;
  if (sent && Object.keys(sent).length > 0) return false;
  return args.document.definitions.every((node) => node.kind !== 'OperationDefinition' || !node.variableDefinitions?.length);
}
