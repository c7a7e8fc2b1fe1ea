// Reading an operation's selections before or while it runs, as graphql-js would.
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  getDirectiveValues,
  Kind,
  type SelectionNode,
} from 'graphql';

/** A document's fragment definitions by name. */
export function fragmentsByName(document: DocumentNode): Map<string, FragmentDefinitionNode> {
  return new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
}

/** Whether a selection runs: not dropped by `@skip(if: true)` or `@include(if: false)`. */
export function isIncluded(selection: SelectionNode, variables: Record<string, unknown>): boolean {
  if (!selection.directives?.length) return true;
  if (getDirectiveValues(GraphQLSkipDirective, selection, variables)?.if === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, selection, variables)?.if !== false;
}
