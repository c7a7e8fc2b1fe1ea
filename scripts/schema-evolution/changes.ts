// What changed between the released schemas and the current ones, as @graphql-inspector/core
// classifies it. Clients see schema.graphql; federating teams compose against subgraph.graphql,
// which is the same types plus the federation directives, so from the subgraph only what the public
// schema cannot show is kept: its entity keys and its `@link`.
import { type Change, CriticalityLevel, diff, type Rule } from '@graphql-inspector/core';
import { buildASTSchema, buildSchema, parse, type Source } from 'graphql';

export interface SchemaChange {
  level: 'breaking' | 'dangerous' | 'safe';
  /** The schema coordinate the inspector names (`Organization.slug`, `Query.organizations.first`), or its message when it names none. */
  coordinate: string;
  message: string;
  file: string;
}

/** Sources named by their files, so a syntax error says where it is. */
interface SchemaPair {
  released: Source;
  current: Source;
}

const LEVELS = {
  [CriticalityLevel.Breaking]: 'breaking',
  [CriticalityLevel.Dangerous]: 'dangerous',
  [CriticalityLevel.NonBreaking]: 'safe',
} as const;

/**
 * A removed `@key` (or a key whose fields changed) breaks every subgraph and router that references
 * the entity by it; a new key breaks nothing. The inspector calls both dangerous, as for any directive.
 */
const entityKeys: Rule = ({ changes }) =>
  changes.map((change) => {
    const meta = change.meta as { removedDirectiveName?: string; addedDirectiveName?: string; directiveName?: string };
    const removed =
      meta.removedDirectiveName === 'key' || (change.type === 'DIRECTIVE_USAGE_ARGUMENT_REMOVED' && meta.directiveName === 'key');
    const added = meta.addedDirectiveName === 'key';
    if (!removed && !added) return change;
    return { ...change, criticality: { level: removed ? CriticalityLevel.Breaking : CriticalityLevel.NonBreaking } };
  });

/**
 * The cost directives (`@cost`, `@listSize`) tell a router what an operation costs; adding, changing
 * or removing them invalidates no operation and no composition. The inspector calls a directive's
 * use dangerous whatever it is.
 */
const COST_DIRECTIVES = new Set(['cost', 'listSize']);
const costDirectives: Rule = ({ changes }) =>
  changes.map((change) => {
    const meta = change.meta as { removedDirectiveName?: string; addedDirectiveName?: string; directiveName?: string };
    const name = meta.addedDirectiveName ?? meta.removedDirectiveName ?? meta.directiveName;
    if (name === undefined || !COST_DIRECTIVES.has(name)) return change;
    return { ...change, criticality: { level: CriticalityLevel.NonBreaking } };
  });

export async function schemaChanges(publicSchema: SchemaPair, subgraph: SchemaPair): Promise<SchemaChange[]> {
  const publicChanges = await diff(buildSchema(publicSchema.released), buildSchema(publicSchema.current));
  // The subgraph SDL uses @link and @key without defining them, as federation expects.
  const buildSubgraph = (sdl: Source) => buildASTSchema(parse(sdl), { assumeValidSDL: true });
  const subgraphChanges = await diff(buildSubgraph(subgraph.released), buildSubgraph(subgraph.current), [entityKeys, costDirectives]);
  const seen = new Set(publicChanges.map(identity));
  return [
    ...publicChanges.map((change) => toSchemaChange(change, 'schema.graphql')),
    ...subgraphChanges.filter((change) => !seen.has(identity(change))).map((change) => toSchemaChange(change, 'subgraph.graphql')),
  ];
}

const identity = (change: Change) => `${change.type} ${change.path} ${change.message}`;

function toSchemaChange(change: Change, file: string): SchemaChange {
  return { level: LEVELS[change.criticality.level], coordinate: change.path ?? change.message, message: change.message, file };
}
