// The cost directives routers price operations by (contract: Cost directives), derived from each
// field's fan-out declaration by the rules of the gateway's own estimate (src/limits/fan-out.ts), so
// the two cannot drift apart. Written as `extensions.directives`, which the directives plugin prints
// into the subgraph SDL.
import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type PothosTypeConfig, type SchemaTypes } from '@pothos/core';
import { costWeightsOf, type FanOut } from '../limits/fan-out.ts';

interface Directive {
  name: string;
  args: Record<string, unknown>;
}

/** A record costs nothing beyond the call that fetched it. */
const RECORD_COST: Directive = { name: 'cost', args: { weight: 0 } };

/** How a connection's size is read: `first` or `last` records in its `edges` and `nodes`. */
const CONNECTION_SIZE = {
  slicingArguments: ['first', 'last'],
  sizedFields: ['edges', 'nodes'],
  requireOneSlicingArgument: false,
};

const withDirectives = (extensions: Readonly<Record<string, unknown>> | null | undefined, added: readonly Directive[]) => {
  const present = (extensions?.directives as Directive[] | undefined) ?? [];
  return { ...extensions, directives: [...present, ...added] };
};

/** `@cost` and `@listSize` of one output field; none on interfaces (the spec forbids it) and subscriptions. */
function fieldDirectives(config: Pick<PothosOutputFieldConfig<SchemaTypes>, 'kind' | 'graphqlKind' | 'extensions'>): Directive[] {
  if (config.graphqlKind === 'Interface' || config.kind === 'Subscription') return [];
  const { weight, assumedSize } = costWeightsOf(config.extensions?.fanOut as FanOut | undefined, {
    rootMutation: config.kind === 'Mutation',
  });
  if (weight === 0) return [];
  const cost: Directive = { name: 'cost', args: { weight } };
  return assumedSize === undefined ? [cost] : [cost, { name: 'listSize', args: { assumedSize, ...CONNECTION_SIZE } }];
}

class CostDirectivesPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override onTypeConfig(config: PothosTypeConfig): PothosTypeConfig {
    // Query, Mutation and Subscription have kinds of their own: only records and payloads weigh 0.
    if (config.kind !== 'Object') return config;
    return { ...config, extensions: withDirectives(config.extensions, [RECORD_COST]) };
  }

  override onOutputFieldConfig(config: PothosOutputFieldConfig<Types>): PothosOutputFieldConfig<Types> {
    const directives = fieldDirectives(config);
    if (directives.length === 0) return config;
    return { ...config, extensions: withDirectives(config.extensions, directives) };
  }
}

const pluginName = 'costDirectives';
export default pluginName;

SchemaBuilder.registerPlugin(pluginName, CostDirectivesPlugin);

declare global {
  // biome-ignore lint/style/noNamespace: Pothos names its plugins in this global namespace, and its options type checks the name against it.
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      costDirectives: CostDirectivesPlugin<Types>;
    }
  }
}
