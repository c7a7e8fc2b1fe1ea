// Operations run as graphql-jit compiles them, each compiled once per document and operation name.
// (@envelop/graphql-jit, used before, cached by document alone: the second operation of a
// document with two ran the first one's code and answered the first one's data.) Queries and
// mutations execute through the plugin here; subscriptions (src/subscriptions) run each event
// through the same compiled operations.
import type { DocumentNode, ExecutionArgs, ExecutionResult } from 'graphql';
import { type CompiledQuery, type CompilerOptions, compileQuery, isCompiledQuery } from 'graphql-jit';
import { isPromise, makeExecute, type Plugin } from 'graphql-yoga';
import { boundedStringify } from '../limits/response-size.ts';

/** What an operation compiled to: its code, or the result of a failed compilation (a bug, answered as one). */
export type CompiledOperation = CompiledQuery | ExecutionResult;

export type OperationArgs = Pick<ExecutionArgs, 'schema' | 'document' | 'operationName'>;

export interface CompiledOperations {
  /** The operation's compiled code, compiled on first use; a failed compilation is told to `onCompileError` once and kept as its result. */
  of(args: OperationArgs): CompiledOperation;
}

/** `maxResponseBytes`: the largest answer an operation's serializer makes (MAX_RESPONSE_BYTES, src/limits/response-size.ts). */
export function compiledOperations(
  compilerOptions: Partial<CompilerOptions>,
  onCompileError: (result: ExecutionResult) => void,
  maxResponseBytes: number,
): CompiledOperations {
  // By document (Yoga's parse cache hands the same one for the same text), then operation name.
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledOperation>>();
  return {
    of(args) {
      let byName = compiled.get(args.document);
      if (!byName) {
        byName = new Map();
        compiled.set(args.document, byName);
      }
      const name = args.operationName ?? '';
      let operation = byName.get(name);
      if (!operation) {
        operation = compileQuery(args.schema, args.document, args.operationName ?? undefined, compilerOptions);
        if (isCompiledQuery(operation)) operation.stringify = boundedStringify(maxResponseBytes, operation.stringify);
        else onCompileError(operation);
        byName.set(name, operation);
      }
      return operation;
    },
  };
}

/** Runs a compiled operation; its result keeps the operation's own JSON serializer, which Yoga's result processing uses. */
function runCompiled(operation: CompiledOperation, args: Pick<ExecutionArgs, 'rootValue' | 'contextValue' | 'variableValues'>) {
  if (!isCompiledQuery(operation)) return operation;
  const withSerializer = (result: ExecutionResult) => Object.assign(result, { stringify: operation.stringify });
  const result = operation.query(args.rootValue, args.contextValue, args.variableValues);
  return isPromise(result) ? result.then(withSerializer) : withSerializer(result);
}

/**
 * Queries and mutations execute as compiled (subscriptions: src/subscriptions/plugins.ts), except
 * those `runsOnYoga` names (@defer and @stream, which graphql-jit ignores): Yoga's own execution.
 */
export function compiledExecutionPlugin(
  operations: CompiledOperations,
  runsOnYoga: (args: ExecutionArgs) => boolean = () => false,
): Plugin {
  const execute = makeExecute((args: ExecutionArgs) => runCompiled(operations.of(args), args));
  return {
    onExecute({ args, setExecuteFn }) {
      if (!runsOnYoga(args)) setExecuteFn(execute);
    },
  };
}
