// Query shape limits with GraphQL Armor: depth, aliases, tokens and directives, and the bounds of
// introspection (./introspection-limits.ts). Every refusal is a QUERY_TOO_COMPLEX error naming its
// limit; field suggestions ("Did you mean …?") are hidden from callers without a key, so the schema
// cannot be mapped by guessing.
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { GraphQLError, Kind, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { callerKey } from '../caller.ts';
import type { QueryLimits } from '../config/index.ts';
import { gatewayError } from '../errors/graphql-errors.ts';
import { introspectionLimitsPlugin } from './introspection-limits.ts';

/** Armor reports plain errors: give each the contract's code and the name of the limit it hit. */
const rejectAs = (limit: 'maxDepth' | 'maxAliases' | 'maxTokens' | 'maxDirectives') => ({
  exposeLimits: true,
  onReject: [
    (_context: ValidationContext | null, error: GraphQLError) => {
      Object.assign(error.extensions, { code: 'QUERY_TOO_COMPLEX', limit });
    },
  ],
});

/**
 * MAX_TOKENS again, for the document with its fragments inlined, counting one token per field: a
 * fragment spread twice in each of 40 nested fragments is 1 KB of text but 2^40 fields inlined,
 * which graphql-jit inlines while compiling. Each fragment is counted once, so this count is linear.
 */
function inlinedTokensRule(maxTokens: number): ValidationRule {
  return (context) => {
    const fragmentFields = new Map<string, number>();
    const fieldsOf = (set: SelectionSetNode): number => {
      let fields = 0;
      for (const selection of set.selections) {
        if (selection.kind === Kind.FIELD) fields += 1 + (selection.selectionSet ? fieldsOf(selection.selectionSet) : 0);
        else if (selection.kind === Kind.INLINE_FRAGMENT) fields += fieldsOf(selection.selectionSet);
        else fields += fragmentFieldsOf(selection.name.value);
      }
      return fields;
    };
    const fragmentFieldsOf = (name: string): number => {
      let fields = fragmentFields.get(name);
      if (fields === undefined) {
        fragmentFields.set(name, 0); // a cycle is another rule's error
        const fragment = context.getFragment(name);
        fields = fragment ? fieldsOf(fragment.selectionSet) : 0;
        fragmentFields.set(name, fields);
      }
      return fields;
    };
    return {
      OperationDefinition(operation) {
        const fields = fieldsOf(operation.selectionSet);
        if (fields <= maxTokens) return;
        context.reportError(
          gatewayError(
            'QUERY_TOO_COMPLEX',
            `Token limit of ${maxTokens} exceeded with fragments inlined, found ${fields} fields.`,
            { limit: 'maxTokens' },
            operation,
          ),
        );
      },
    };
  };
}

function inlinedTokensPlugin(maxTokens: number): Plugin {
  const rule = inlinedTokensRule(maxTokens);
  return {
    onValidate({ addValidationRule }) {
      addValidationRule(rule);
    },
  };
}

/**
 * Masks "Did you mean …?" for callers without a key. Not Armor's block-field-suggestions plugin:
 * it rewrites error objects in place, and Yoga caches validation results per document, so the
 * masked text would reach callers with a key too. Masking copies of the errors as the response is
 * written keeps the cache untouched.
 */
function hideSuggestionsFromAnonymousCallers(): Plugin {
  const mask = (error: GraphQLError) =>
    /Did you mean/.test(error.message)
      ? new GraphQLError(error.message.replace(/ ?Did you mean .+\?$/, ''), { nodes: error.nodes, extensions: error.extensions })
      : error;
  return {
    onResultProcess({ request, result, setResult }) {
      if (callerKey(request) || Array.isArray(result) || !('errors' in result) || !result.errors) return;
      setResult({ ...result, errors: result.errors.map((error) => mask(error as GraphQLError)) });
    },
  };
}

export function queryLimitPlugins(limits: QueryLimits): Plugin[] {
  return [
    maxDepthPlugin({ n: limits.maxDepth, ignoreIntrospection: true, flattenFragments: true, ...rejectAs('maxDepth') }) as Plugin,
    maxAliasesPlugin({ n: limits.maxAliases, ...rejectAs('maxAliases') }) as Plugin,
    maxTokensPlugin({ n: limits.maxTokens, ...rejectAs('maxTokens') }) as Plugin,
    inlinedTokensPlugin(limits.maxTokens),
    maxDirectivesPlugin({ n: limits.maxDirectives, ...rejectAs('maxDirectives') }) as Plugin,
    introspectionLimitsPlugin(limits),
    hideSuggestionsFromAnonymousCallers(),
  ];
}
