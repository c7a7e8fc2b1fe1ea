// Several mutations in one operation run one after another, and a bad one stops them as a whole:
// every global id of their inputs is checked before the first runs, so a malformed one (or one of
// the wrong type) is BAD_USER_INPUT with no upstream call wherever it stands; and once one fails with
// a GraphQL error, those after it do not run, as graphql-js's serial execution stops (graphql-jit
// would run them).
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  GraphQLError,
  GraphQLIncludeDirective,
  type GraphQLObjectType,
  type GraphQLSchema,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isInputObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { fragmentsByName } from '../../limits/fan-out.ts';
import type { BuilderTypes } from '../builder.ts';
import { parseNodeId } from '../node-registry.ts';

type InputFieldBuilder = PothosSchemaTypes.InputFieldBuilder<BuilderTypes, 'InputObject'>;

/** A required input field taking a global id of `typename`, checked before any mutation of the operation runs. */
export const globalIdInput = (t: InputFieldBuilder, typename: string, description: string) =>
  t.id({ required: true, description, extensions: { globalIdOf: typename } });

/** Operations one of whose mutations failed with a GraphQL error, by context. */
const stopped = new WeakSet<object>();

/**
 * Every mutation's resolver, first: throws when an earlier mutation of the operation failed. The
 * answer does not show it: that failure already made `data` null (every mutation field is non-null),
 * and graphql-jit keeps only the first error that reaches `data`, as graphql-js would have stopped.
 */
export function refuseAfterFailure(context: object): void {
  if (stopped.has(context)) throw new Error('An earlier mutation of this operation failed.');
}

/** A mutation failed with a GraphQL error (not an error as data): the operation's later mutations do not run. */
export function stopAfterFailure(context: object): void {
  stopped.add(context);
}

export function serialMutationsPlugin(): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const operation = getOperationAST(args.document, args.operationName);
      const mutationType = args.schema.getMutationType();
      if (operation?.operation !== 'mutation' || !mutationType) return;
      const badId = firstBadInputId(args.schema, mutationType, args.document, operation, args.variableValues);
      // The failed field is non-null, so `data` is null, as when its resolver refused the id.
      if (badId) setResultAndStopExecution({ data: null, errors: [badId] });
    },
  };
}

/** The first global id of the operation's mutation inputs that is malformed or of the wrong type, located at its field. */
function firstBadInputId(
  schema: GraphQLSchema,
  mutationType: GraphQLObjectType,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  rawVariables: Record<string, unknown> | null | undefined,
): GraphQLError | undefined {
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {});
  if (coerced.errors) return undefined; // execution refuses bad variables before any field runs
  const variables = coerced.coerced;
  const fragments = fragmentsByName(document);
  for (const node of rootFields(operation.selectionSet, fragments, variables, new Set(), [])) {
    const field = mutationType.getFields()[node.name.value];
    if (!field) continue;
    let args: Record<string, unknown>;
    try {
      args = getArgumentValues(field, node, variables);
    } catch {
      continue; // that field's execution reports its bad argument
    }
    for (const arg of field.args) {
      const inputType = getNamedType(arg.type);
      const input = args[arg.name] as Record<string, unknown> | null | undefined;
      if (!isInputObjectType(inputType) || !input) continue;
      for (const inputField of Object.values(inputType.getFields())) {
        const typename = inputField.extensions.globalIdOf as string | undefined;
        const id = input[inputField.name];
        if (typename === undefined || id == null) continue;
        try {
          parseNodeId(String(id), `${arg.name}.${inputField.name}`, [typename]);
        } catch (error) {
          const { message, extensions } = error as GraphQLError;
          return new GraphQLError(message, { nodes: node, path: [node.alias?.value ?? node.name.value], extensions });
        }
      }
    }
  }
  return undefined;
}

/** The operation's root fields that will run, in order, through fragments (each once) and @skip/@include. */
function rootFields(
  set: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
  visited: Set<string>,
  into: FieldNode[],
): FieldNode[] {
  for (const selection of set.selections) {
    if (getDirectiveValues(GraphQLSkipDirective, selection, variables)?.if === true) continue;
    if (getDirectiveValues(GraphQLIncludeDirective, selection, variables)?.if === false) continue;
    if (selection.kind === Kind.FIELD) {
      into.push(selection);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      rootFields(selection.selectionSet, fragments, variables, visited, into);
    } else if (!visited.has(selection.name.value)) {
      visited.add(selection.name.value);
      const fragment = fragments.get(selection.name.value);
      if (fragment) rootFields(fragment.selectionSet, fragments, variables, visited, into);
    }
  }
  return into;
}
