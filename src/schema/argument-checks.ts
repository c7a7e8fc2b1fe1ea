// Bad arguments are refused before the operation runs (contract: Errors, "BAD_USER_INPUT ...: no
// upstream call"): a page size out of range, a cursor the gateway did not make or of another list, a
// malformed global id or one of the wrong type, a required argument given null, wherever the field
// stands. Checked in the resolver alone, a bad argument deep in a query would fail only after the
// fields above it had called the upstream, and one in a mutation's payload after the write. Every
// field the operation could run is checked (one in a fragment on a type the answer may not have too),
// through fragments and @skip/@include, with its variables applied; each bad argument is one error,
// and the operation answers `data: null` with them, as a refused mutation input always did.
import {
  type DocumentNode,
  type GraphQLCompositeType,
  GraphQLError,
  type GraphQLField,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isCompositeType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors/graphql-errors.ts';
import type { FanOut } from '../limits/fan-out.ts';
import { operationMemo } from '../limits/operation-memo.ts';
import { fragmentsByName, isIncluded } from '../limits/selections.ts';
import type { BuilderTypes } from './builder.ts';
import { checkConnectionArguments } from './connection.ts';
import { parseNodeId } from './node-registry.ts';

/** A field's own check of its arguments, declared as `extensions.checkArguments`: throws BAD_USER_INPUT. */
export type ArgumentCheck = (args: Record<string, unknown>) => void;

type InputFieldBuilder = PothosSchemaTypes.InputFieldBuilder<BuilderTypes, 'InputObject'>;

/** A required input field taking a global id of `typename`, checked before any mutation of the operation runs. */
export const globalIdInput = (t: InputFieldBuilder, typename: string, description: string) =>
  t.id({ required: true, description, extensions: { globalIdOf: typename } });

/** Errors reported at most, however many bad arguments an operation has. */
const MAX_ERRORS = 20;

export function argumentChecksPlugin(): Plugin {
  // Only a clean result is remembered: a refusal's errors are built again for each request that has them.
  const errorsOf = operationMemo(
    (args) => badArguments(args.schema, args.document, args.operationName, args.variableValues),
    (errors) => errors.length === 0,
  );
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const errors = errorsOf(args);
      if (errors.length > 0) setResultAndStopExecution({ data: null, errors });
    },
  };
}

/** An error for each bad argument of the fields the operation could run (at most MAX_ERRORS). */
function badArguments(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: Record<string, unknown> | null | undefined,
): GraphQLError[] {
  const operation = getOperationAST(document, operationName);
  const rootType = operation && schema.getRootType(operation.operation);
  if (!operation || !rootType) return [];
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {});
  if (coerced.errors) return []; // execution refuses bad variables before any field runs
  const variables = coerced.coerced;
  const fragments = fragmentsByName(document);
  const errors: GraphQLError[] = [];
  // A fragment is checked once, under its own type condition: its arguments are the same wherever it
  // stands, and a document cannot make this walk exponential.
  const checkedFragments = new Set<string>();

  /**
   * `path`: the names of the fields down to `set`. Below a list it has no index: the operation is
   * refused before the list is fetched, so the error names the field, as a top-level one does.
   */
  const visit = (type: GraphQLCompositeType, set: SelectionSetNode, path: readonly string[]) => {
    for (const selection of set.selections) {
      if (errors.length >= MAX_ERRORS) return;
      if (!isIncluded(selection, variables)) continue;
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        if (isCompositeType(condition)) visit(condition, selection.selectionSet, path);
        continue;
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        const condition = fragment && schema.getType(fragment.typeCondition.name.value);
        if (!fragment || !isCompositeType(condition) || checkedFragments.has(fragment.name.value)) continue;
        checkedFragments.add(fragment.name.value);
        visit(condition, fragment.selectionSet, path);
        continue;
      }
      const field = isObjectType(type) || isInterfaceType(type) ? type.getFields()[selection.name.value] : undefined;
      if (!field) continue;
      const fieldPath = [...path, selection.alias?.value ?? selection.name.value];
      let args: Record<string, unknown> = {};
      let error: GraphQLError | undefined;
      try {
        args = getArgumentValues(field, selection, variables);
      } catch (invalid) {
        // A required argument given null through a variable with a default (validation lets it
        // by): graphql-jit would report it only once the fields before had run, and in a serial
        // mutation never answer at all.
        error = gatewayError('BAD_USER_INPUT', (invalid as Error).message);
      }
      error ??= argumentError(field, args);
      if (error) errors.push(new GraphQLError(error.message, { nodes: selection, path: fieldPath, extensions: error.extensions }));
      const childType = getNamedType(field.type);
      if (selection.selectionSet && isCompositeType(childType)) {
        visit(childType, selection.selectionSet, fieldPath);
      }
    }
  };
  visit(rootType, operation.selectionSet, []);
  return errors;
}

/** The first bad argument of one field, or undefined. */
function argumentError(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): GraphQLError | undefined {
  try {
    // Every connection (its fan-out says so) takes first/last/after/before.
    if ((field.extensions.fanOut as FanOut | undefined) === 'connection') checkConnectionArguments(args, field.name);
    (field.extensions.checkArguments as ArgumentCheck | undefined)?.(args);
    checkInputGlobalIds(field, args);
  } catch (error) {
    if (error instanceof GraphQLError) return error;
    throw error;
  }
  return undefined;
}

/** The global ids of a mutation's input object (input fields declared with globalIdInput). */
function checkInputGlobalIds(field: GraphQLField<unknown, unknown>, args: Record<string, unknown>): void {
  for (const arg of field.args) {
    const inputType = getNamedType(arg.type);
    const input = args[arg.name] as Record<string, unknown> | null | undefined;
    if (!isInputObjectType(inputType) || !input) continue;
    for (const inputField of Object.values(inputType.getFields())) {
      const typename = inputField.extensions.globalIdOf as string | undefined;
      const id = input[inputField.name];
      if (typename !== undefined && id != null) parseNodeId(String(id), `${arg.name}.${inputField.name}`, [typename]);
    }
  }
}
