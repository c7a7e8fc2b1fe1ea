// subgraph.graphql is what `_service { sdl }` answers and is current; every Node type is an entity
// (Organization also by databaseId); the served schema is the public one plus federation's fields,
// and schema.graphql stays free of them.
import { readFileSync } from 'node:fs';
import { composeServices } from '@theguild/federation-composition';
import { isInterfaceType, Kind, type ObjectTypeDefinitionNode, parse, print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema as publicSchema } from '../../src/schema/index.ts';
import { printSubgraphSdl, subgraphSchema } from '../../src/schema/subgraph.ts';

const read = (name: string) => readFileSync(new URL(`../../${name}`, import.meta.url), 'utf8');

/** `@key(fields: ...)` values by type name, from the committed subgraph SDL. */
function keysByType(sdl: string): Map<string, string[]> {
  const keys = new Map<string, string[]>();
  for (const definition of parse(sdl).definitions) {
    if (definition.kind !== Kind.OBJECT_TYPE_DEFINITION) continue;
    const found = ((definition as ObjectTypeDefinitionNode).directives ?? [])
      .filter((d) => d.name.value === 'key')
      .map((d) => print(d.arguments?.find((a) => a.name.value === 'fields')?.value ?? { kind: Kind.NULL }));
    if (found.length > 0) keys.set(definition.name.value, found);
  }
  return keys;
}

describe('subgraph.graphql', () => {
  it('is the current subgraph SDL (run `npm run schema` when this fails)', () => {
    expect(read('subgraph.graphql')).toBe(printSubgraphSdl());
  });

  it('links Federation v2 and makes every Node type an entity by id, Organization also by databaseId', () => {
    const sdl = read('subgraph.graphql');
    expect(sdl).toMatch(
      /^extend schema\s+@link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.\d+", import: \["@key", "@cost", "@listSize"\]\)/,
    );
    const node = publicSchema.getType('Node');
    if (!isInterfaceType(node)) throw new Error('Node must be an interface');
    const nodeTypes = publicSchema
      .getPossibleTypes(node)
      .map((t) => t.name)
      .sort();
    expect(nodeTypes).toHaveLength(11);
    const expected = new Map(nodeTypes.map((name) => [name, name === 'Organization' ? ['"id"', '"databaseId"'] : ['"id"']]));
    expect(new Map([...keysByType(sdl)].sort())).toEqual(expected);
  });

  it('composes as a valid Federation v2 subgraph', () => {
    const result = composeServices([{ name: 'organizations', typeDefs: parse(read('subgraph.graphql')) }]);
    expect(result.errors ?? []).toEqual([]);
  });
});

describe('the served schema and the public one', () => {
  it('serves the public schema plus _service and _entities', () => {
    const served = Object.keys(subgraphSchema.getQueryType()?.getFields() ?? {}).sort();
    const publicFields = Object.keys(publicSchema.getQueryType()?.getFields() ?? {});
    expect(served).toEqual([...publicFields, '_entities', '_service'].sort());
    const extraTypes = Object.keys(subgraphSchema.getTypeMap()).filter((name) => !publicSchema.getType(name));
    expect(extraTypes.sort()).toEqual(['_Any', '_Entity', '_Service']);
    expect(Object.keys(subgraphSchema.getMutationType()?.getFields() ?? {}).sort()).toEqual(
      Object.keys(publicSchema.getMutationType()?.getFields() ?? {}).sort(),
    );
  });

  it('keeps federation out of schema.graphql', () => {
    const printed = read('schema.graphql');
    for (const federationOnly of ['_service', '_entities', '_Any', '_Entity', '@key', '@link', '@cost', '@listSize'])
      expect(printed).not.toContain(federationOnly);
  });
});
