// Introspection costs no upstream call, but its answer can be far larger than its question: each
// aliased `__schema` selection answers the whole schema again. Each bound below is QUERY_TOO_COMPLEX naming
// its limit, like the other query limits; the standard introspection query (graphql-js's
// getIntrospectionQuery(), which GraphiQL, graphql-codegen and Hive/Apollo tooling send) is 15
// deep, has one `__schema` and no alias, and passes them all.
import {
  type ASTVisitor,
  type FieldNode,
  type GraphQLError,
  isIntrospectionType,
  Kind,
  MaxIntrospectionDepthRule,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors/graphql-errors.ts';

interface IntrospectionLimits {
  /** Deepest selection inside `__schema` or `__type` (which count as 1; MAX_INTROSPECTION_DEPTH). */
  maxIntrospectionDepth: number;
  /** `__type` selections (distinct response names) per document (MAX_INTROSPECTION_TYPES). */
  maxIntrospectionTypes: number;
}

const tooComplex = (message: string, limit: string, node: FieldNode | undefined) =>
  gatewayError('QUERY_TOO_COMPLEX', message, { limit }, node);

/**
 * The depth of a selection set, fragments inlined: each fragment is measured once however often it
 * is spread, so a document cannot make this walk exponential.
 */
function depthMeter(context: ValidationContext): (selectionSet: SelectionSetNode | undefined) => number {
  const fragmentDepths = new Map<string, number>();
  const visiting = new Set<string>();
  const fragmentDepth = (name: string): number => {
    const known = fragmentDepths.get(name);
    if (known !== undefined) return known;
    const fragment = context.getFragment(name);
    if (!fragment || visiting.has(name)) return 0; // unknown fragments and cycles are other rules' errors
    visiting.add(name);
    const depth = depthOf(fragment.selectionSet);
    visiting.delete(name);
    fragmentDepths.set(name, depth);
    return depth;
  };
  const depthOf = (selectionSet: SelectionSetNode | undefined): number => {
    let deepest = 0;
    for (const selection of selectionSet?.selections ?? []) {
      const depth =
        selection.kind === Kind.FIELD
          ? 1 + depthOf(selection.selectionSet)
          : selection.kind === Kind.INLINE_FRAGMENT
            ? depthOf(selection.selectionSet)
            : fragmentDepth(selection.name.value);
      deepest = Math.max(deepest, depth);
    }
    return deepest;
  };
  return depthOf;
}

function introspectionLimitsRule(limits: IntrospectionLimits): ValidationRule {
  return (context): ASTVisitor => {
    const depthOf = depthMeter(context);
    const schemas = new Map<string, FieldNode>();
    const types = new Map<string, FieldNode>();
    let deepest: { depth: number; node: FieldNode } | undefined;
    const aliased: FieldNode[] = [];
    return {
      Field(node) {
        const name = node.name.value;
        // Federation's `_service { sdl }` is the whole schema too: it counts as a `__schema`.
        if (
          name === '__schema' ||
          name === '__type' ||
          (name === '_service' && context.getParentType() === context.getSchema().getQueryType())
        ) {
          (name === '__type' ? types : schemas).set(node.alias?.value ?? name, node);
          const depth = 1 + depthOf(node.selectionSet);
          if (!deepest || depth > deepest.depth) deepest = { depth, node };
        } else if (node.alias) {
          const parent = context.getParentType();
          if (parent && isIntrospectionType(parent)) aliased.push(node);
        }
      },
      Document: {
        leave() {
          if (deepest && deepest.depth > limits.maxIntrospectionDepth) {
            const { depth, node } = deepest;
            context.reportError(
              tooComplex(
                `Introspection depth limit of ${limits.maxIntrospectionDepth} exceeded, found ${depth}.`,
                'maxIntrospectionDepth',
                node,
              ),
            );
          }
          if (schemas.size > 1) {
            context.reportError(
              tooComplex(
                `\`__schema\` (or \`_service\`) limit of 1 exceeded, found ${schemas.size}: one answers it all.`,
                'maxIntrospectionSchemas',
                [...schemas.values()][1],
              ),
            );
          }
          if (types.size > limits.maxIntrospectionTypes) {
            const node = [...types.values()][limits.maxIntrospectionTypes];
            context.reportError(
              tooComplex(
                `\`__type\` limit of ${limits.maxIntrospectionTypes} exceeded, found ${types.size}.`,
                'maxIntrospectionTypes',
                node,
              ),
            );
          }
          if (aliased.length > 0) {
            context.reportError(
              tooComplex(
                `Introspection aliases limit of 0 exceeded, found ${aliased.length}: an alias there only repeats part of the schema.`,
                'introspectionAliases',
                aliased[0],
              ),
            );
          }
        },
      },
    };
  };
}

/** graphql-js's own rule against nested introspection lists (`fields { type { fields { … } } }`), reporting QUERY_TOO_COMPLEX like the others. */
const introspectionListsRule: ValidationRule = (context) =>
  MaxIntrospectionDepthRule(
    Object.assign(Object.create(context) as ValidationContext, {
      reportError: (error: GraphQLError) =>
        context.reportError(
          tooComplex(
            `${error.message}: introspection lists nest at most 3 deep.`,
            'maxIntrospectionListDepth',
            error.nodes?.[0] as FieldNode,
          ),
        ),
    }),
  );

export function introspectionLimitsPlugin(limits: IntrospectionLimits): Plugin {
  const rule = introspectionLimitsRule(limits);
  return {
    onValidate({ addValidationRule, validateFn, setValidationFn }) {
      addValidationRule(rule);
      addValidationRule(introspectionListsRule);
      // The original would report the same documents again, as GRAPHQL_VALIDATION_FAILED.
      setValidationFn((schema, document, rules, ...rest) =>
        validateFn(
          schema,
          document,
          rules?.filter((rule: ValidationRule) => rule !== MaxIntrospectionDepthRule),
          ...rest,
        ),
      );
    },
  };
}
