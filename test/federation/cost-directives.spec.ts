// The cost directives of subgraph.graphql (contract: Cost directives) weigh what the gateway's own
// fan-out estimate counts, field by field over the whole schema: each field's `@cost` is what the
// estimate charges one instance of it, and a connection's `@listSize` repeats its records' fields
// `first`, `last` or 20 times, as the estimate does. Apollo's composition keeps them in the supergraph.
import { readFileSync } from 'node:fs';
import { composeServices } from '@apollo/composition';
import {
  type ConstDirectiveNode,
  type DirectiveNode,
  type GraphQLField,
  GraphQLSchema,
  getNamedType,
  isCompositeType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type ObjectTypeDefinitionNode,
  parse,
  valueFromASTUntyped,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { estimateUpstreamCalls } from '../../src/limits/fan-out.ts';
import { globalId } from '../../src/schema/global-id.ts';
import { subgraphSchema } from '../../src/schema/subgraph.ts';
import { DEFAULTS } from '../support/defaults.ts';
import { UNKNOWN_UUID } from '../support/ids.ts';

const SDL = readFileSync(new URL('../../subgraph.graphql', import.meta.url), 'utf8');
const ROOT_TYPES = ['Query', 'Mutation', 'Subscription'];
/** The dearest id `node`/`nodes` can be given: a member, found by scanning its organization's members. */
const MEMBER_ID = globalId('Member', UNKNOWN_UUID, UNKNOWN_UUID, UNKNOWN_UUID);
const CONNECTION_SIZE = { slicingArguments: ['first', 'last'], sizedFields: ['edges', 'nodes'], requireOneSlicingArgument: false };

const objectTypes = parse(SDL).definitions.filter((d): d is ObjectTypeDefinitionNode => d.kind === Kind.OBJECT_TYPE_DEFINITION);

function directiveArgs(directives: readonly (ConstDirectiveNode | DirectiveNode)[] | undefined, name: string) {
  const found = directives?.filter((d) => d.name.value === name) ?? [];
  expect(found.length).toBeLessThanOrEqual(1);
  const [directive] = found;
  return directive && Object.fromEntries((directive.arguments ?? []).map((a) => [a.name.value, valueFromASTUntyped(a.value)]));
}

/** A literal for a required argument: the estimate reads only `node`/`nodes` ids and page sizes. */
function literalFor(field: GraphQLField<unknown, unknown>, argName: string): string {
  if (field.name === 'node') return `"${MEMBER_ID}"`;
  if (field.name === 'nodes') return `["${MEMBER_ID}"]`;
  const type = field.args.find((a) => a.name === argName)?.type;
  const named = getNamedType(type);
  if (isInputObjectType(named)) return '{}';
  const scalar = named?.name === 'Int' ? '1' : '"x"';
  return isListType(isNonNullType(type) ? type.ofType : type) ? `[${scalar}]` : scalar;
}

/** What the estimate charges `selection` (one field of `typeName`, and below) when that type is the root. */
function estimate(typeName: string, selection: string): number {
  const root = subgraphSchema.getType(typeName);
  if (!isObjectType(root)) throw new Error(`${typeName} is not an object type`);
  const operation = typeName === 'Mutation' ? 'mutation' : 'query';
  const schema = ROOT_TYPES.includes(typeName) ? subgraphSchema : new GraphQLSchema({ query: root });
  return estimateUpstreamCalls(
    schema,
    parse(`${operation} { ${selection} }`),
    undefined,
    {},
    {
      maxLookupScanPages: DEFAULTS.maxLookupScanPages,
    },
  );
}

function probe(field: GraphQLField<unknown, unknown>, extraArgs = '', below?: string): string {
  const args = [
    ...field.args
      .filter((a) => isNonNullType(a.type) && a.defaultValue === undefined)
      .map((a) => `${a.name}: ${literalFor(field, a.name)}`),
    ...(extraArgs ? [extraArgs] : []),
  ];
  const selection = below ?? (isCompositeType(getNamedType(field.type)) ? '{ __typename }' : '');
  return `${field.name}${args.length > 0 ? `(${args.join(', ')})` : ''} ${selection}`;
}

const fieldsOf = (typeName: string) => {
  const type = subgraphSchema.getType(typeName);
  return isObjectType(type) ? Object.values(type.getFields()) : [];
};

/** A field of `typeName` that makes a call and needs no argument, to watch a connection repeat it. */
const callingField = (typeName: string) =>
  fieldsOf(typeName).find((field) => field.args.every((a) => !isNonNullType(a.type)) && estimate(typeName, probe(field)) > 0);

describe('the cost directives of subgraph.graphql', () => {
  it('link Federation v2.9 or later and import @cost and @listSize', () => {
    expect(SDL).toMatch(/@link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.(9|\d\d)", import: \["@key", "@cost", "@listSize"\]\)/);
  });

  it('weigh every object type 0, and the root types nothing', () => {
    const served = Object.values(subgraphSchema.getTypeMap()).filter((t) => isObjectType(t) && !t.name.startsWith('_'));
    expect(objectTypes.map((t) => t.name.value).sort()).toEqual(served.map((t) => t.name).sort());
    for (const type of objectTypes) {
      const expected = ROOT_TYPES.includes(type.name.value) ? undefined : { weight: 0 };
      expect({ type: type.name.value, cost: directiveArgs(type.directives, 'cost') }).toEqual({ type: type.name.value, cost: expected });
    }
  });

  it("weigh every field what the fan-out estimate charges one instance of it (a `node` id at its dearest, a member's scan)", () => {
    const weights = new Map<string, number>();
    for (const type of objectTypes) {
      for (const definition of type.fields ?? []) {
        const coordinate = `${type.name.value}.${definition.name.value}`;
        const field = fieldsOf(type.name.value).find((f) => f.name === definition.name.value);
        if (!field) throw new Error(`${coordinate} is not served`);
        const weight = directiveArgs(definition.directives, 'cost')?.weight;
        // Subscriptions are not priced: routers' demand control prices queries and mutations.
        const expected = type.name.value === 'Subscription' ? 0 : estimate(type.name.value, probe(field));
        expect({ coordinate, weight: weight ?? 0 }).toEqual({ coordinate, weight: expected });
        expect(weight).not.toBe(0); // a field that makes no call carries no @cost
        if (weight !== undefined) weights.set(coordinate, weight as number);
      }
    }
    // The contract's examples, as a reader checks them.
    expect(weights.get('Query.organization')).toBe(1);
    expect(weights.get('Query.organizations')).toBe(1);
    expect(weights.get('Query.node')).toBe(DEFAULTS.maxLookupScanPages);
    expect(weights.get('Query.nodes')).toBe(DEFAULTS.maxLookupScanPages);
    expect(weights.get('Mutation.createOrganization')).toBe(2);
    expect(weights.get('PipelineDestination.source')).toBe(1);
    expect(weights.has('Query.project')).toBe(false);
    expect(weights.has('Organization.projects')).toBe(false);
    expect(weights.has('Member.user')).toBe(false);
  });

  it('size every connection by first, last or 20, as the estimate repeats the fields of its records', () => {
    let connections = 0;
    let watched = 0;
    for (const type of objectTypes) {
      for (const definition of type.fields ?? []) {
        const listSize = directiveArgs(definition.directives, 'listSize');
        const field = fieldsOf(type.name.value).find((f) => f.name === definition.name.value);
        if (!field) throw new Error(`${type.name.value}.${definition.name.value} is not served`);
        const isConnection = ['first', 'last', 'after', 'before'].every((name) => field.args.some((a) => a.name === name));
        expect({ field: `${type.name.value}.${field.name}`, listSize }).toEqual({
          field: `${type.name.value}.${field.name}`,
          listSize: isConnection && type.name.value !== 'Subscription' ? { assumedSize: 20, ...CONNECTION_SIZE } : undefined,
        });
        if (!listSize) continue;
        connections += 1;
        const recordType = getNamedType(fieldsOf(getNamedType(field.type).name).find((f) => f.name === 'nodes')?.type);
        const child = recordType && callingField(recordType.name);
        if (!child) continue;
        watched += 1;
        const own = estimate(type.name.value, probe(field));
        const each = estimate(recordType.name, probe(child));
        const size = (args: string) => estimate(type.name.value, probe(field, args, `{ nodes { ${probe(child)} } }`));
        expect(size('')).toBe(own + (listSize.assumedSize as number) * each);
        expect(size('first: 3')).toBe(own + 3 * each);
        expect(size('last: 7')).toBe(own + 7 * each);
        expect(estimate(type.name.value, probe(field, 'first: 3', `{ edges { node { ${probe(child)} } } }`))).toBe(own + 3 * each);
      }
    }
    expect(connections).toBe(9);
    expect(watched).toBeGreaterThanOrEqual(4);
  });
});

describe('composed by @apollo/composition', () => {
  it('keeps @cost and @listSize on every connection field of the supergraph', () => {
    const result = composeServices([{ name: 'organizations', typeDefs: parse(SDL), url: 'http://127.0.0.1:4000/graphql' }]);
    expect(result.errors ?? []).toEqual([]);
    const supergraph = result.supergraphSdl ?? '';
    expect(supergraph).toContain('@link(url: "https://specs.apollo.dev/cost/v0.1"');
    const superTypes = new Map(
      parse(supergraph)
        .definitions.filter((d): d is ObjectTypeDefinitionNode => d.kind === Kind.OBJECT_TYPE_DEFINITION)
        .map((d) => [d.name.value, d]),
    );
    let checked = 0;
    for (const type of objectTypes) {
      const composed = superTypes.get(type.name.value);
      if (!ROOT_TYPES.includes(type.name.value)) expect(directiveArgs(composed?.directives, 'cost')).toEqual({ weight: 0 });
      for (const definition of type.fields ?? []) {
        const listSize = directiveArgs(definition.directives, 'listSize');
        if (!listSize) continue;
        const composedField = composed?.fields?.find((f) => f.name.value === definition.name.value);
        expect(directiveArgs(composedField?.directives, 'cost')).toEqual({ weight: 1 });
        expect(directiveArgs(composedField?.directives, 'listSize')).toEqual(listSize);
        checked += 1;
      }
    }
    expect(checked).toBe(9);
  });
});
