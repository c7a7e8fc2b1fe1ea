// What a pre-execution check computes depends only on the document, the operation name and the
// variables. Yoga's parser cache hands the same document to every request with the same text, so a
// dashboard polled again and again is walked once, not once per request.
import type { DocumentNode, ExecutionArgs } from 'graphql';
import { exceedsDepth } from './json-depth.ts';

/** Distinct operation names and variables remembered per document, and the longest key kept: the
 * memo must stay small whatever variables callers send (Yoga keeps up to 1000 documents). */
const MAX_ENTRIES_PER_DOCUMENT = 100;
const MAX_KEY_LENGTH = 512;

type OperationArgs = Pick<ExecutionArgs, 'schema' | 'document' | 'operationName' | 'variableValues'>;

/** `compute(args)` once per document, operation name and variables; `keep` says which results are worth remembering. */
export function operationMemo<T>(compute: (args: OperationArgs) => T, keep: (value: T) => boolean = () => true) {
  const byDocument = new WeakMap<DocumentNode, Map<string, T>>();
  return (args: OperationArgs): T => {
    const key = memoKeyOf(args);
    let byArguments = byDocument.get(args.document);
    if (!byArguments) {
      byArguments = new Map();
      byDocument.set(args.document, byArguments);
    }
    const known = key === undefined ? undefined : byArguments.get(key);
    if (known !== undefined) return known;
    const value = compute(args);
    if (key !== undefined && byArguments.size < MAX_ENTRIES_PER_DOCUMENT && keep(value)) byArguments.set(key, value);
    return value;
  };
}

/**
 * Every memo's key for one request's variables, made once: the argument checks and the fan-out
 * estimate each ask for it, and the variables may take a depth walk and a JSON.stringify.
 */
const keysByVariables = new WeakMap<object, { operationName: string | null | undefined; key: string | undefined }>();
function memoKeyOf({ operationName, variableValues }: OperationArgs): string | undefined {
  if (!variableValues) return memoKey(operationName, variableValues);
  const known = keysByVariables.get(variableValues);
  if (known && known.operationName === operationName) return known.key;
  const key = memoKey(operationName, variableValues);
  keysByVariables.set(variableValues, { operationName, key });
  return key;
}

/**
 * The memo's key, or undefined when it would be too long to keep. Variables nested more than half as
 * deep as that length could not give a short enough key, and are not stringified: JSON.stringify
 * recurses, and these may be any depth (undeclared variables are never checked).
 */
function memoKey(operationName: string | null | undefined, variables: Record<string, unknown> | null | undefined): string | undefined {
  if (variables && exceedsDepth(variables, MAX_KEY_LENGTH / 2)) return undefined;
  const key = `${operationName ?? ''}\u0000${variables ? JSON.stringify(variables) : ''}`;
  return key.length <= MAX_KEY_LENGTH ? key : undefined;
}
