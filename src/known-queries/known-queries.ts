// The queries this gateway has run through Yoga's whole pipeline and found runnable: the query text
// and operation name of each, with its compiled operation and fan-out estimate. Only queries without
// variables are kept: every check before execution (parse, validation, the query limits, argument
// checks, the fan-out estimate) then depends on the text alone and passes again for the same text,
// whoever sends it. The fast path (./fast-path.ts) runs these without the pipeline.
import type { DefinitionNode, ExecutionArgs } from 'graphql';
import { type CompiledQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import type { CompiledOperations } from '../compiled-operations.ts';

export interface KnownQuery {
  operation: CompiledQuery;
  /** The executed operation's own name (the request log's and the metrics' `operation`). */
  operationName: string | undefined;
  /** Its fan-out estimate: the weight admission control gives it. */
  estimate: number;
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
  /** The operation's fan-out estimate, noted by the fan-out plugin before. */
  estimateOf(context: object): number | undefined;
}

export function createKnownQueries({ max, operations, estimateOf }: KnownQueriesOptions): KnownQueries {
  // A Map keeps insertion order: re-inserting on each hit makes its first key the least recently used.
  const known = new Map<string, KnownQuery>();
  const keyOf = (query: string, operationName: string | undefined) => `${operationName ?? ''} ${query}`;
  const remember = (key: string, query: KnownQuery) => {
    known.delete(key);
    known.set(key, query);
    if (known.size > max) known.delete(known.keys().next().value as string);
  };
  return {
    get(query, operationName) {
      const key = keyOf(query, operationName);
      const hit = known.get(key);
      if (hit) remember(key, hit);
      return hit;
    },
    recorder: {
      onExecute({ args, context }) {
        const { params } = context as YogaInitialContext;
        if (typeof params?.query !== 'string' || !withoutVariables(args)) return;
        const operationName = params.operationName ?? undefined;
        if (operationName !== undefined && !isOperationName(operationName)) return;
        const operation = operations.of(args);
        const estimate = estimateOf(context);
        if (!isCompiledQuery(operation) || estimate === undefined) return;
        const definition = args.document.definitions.find(
          (node: DefinitionNode) =>
            node.kind === 'OperationDefinition' && (operationName === undefined || node.name?.value === operationName),
        );
        if (definition?.kind !== 'OperationDefinition' || definition.operation !== 'query') return;
        remember(keyOf(params.query, operationName), { operation, operationName: definition.name?.value, estimate });
      },
    },
  };
}

/** No variables declared and none sent: the document alone decides every check. */
function withoutVariables(args: ExecutionArgs): boolean {
  const sent = args.variableValues;
  if (sent && Object.keys(sent).length > 0) return false;
  return args.document.definitions.every((node) => node.kind !== 'OperationDefinition' || !node.variableDefinitions?.length);
}

const OPERATION_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** Only a GraphQL name can name an operation; the key puts a space after it. */
export const isOperationName = (name: string) => OPERATION_NAME.test(name);
