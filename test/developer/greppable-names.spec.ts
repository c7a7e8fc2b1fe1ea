// Every GraphQL name of the public schema is written in src/ as it is served, so a reader finds where
// a type, a field or an input field comes from with one grep: each type name as a string, each field
// and input field name as a string or an object key. Only the four types Pothos names itself are
// exempt. A name built at run time (a template string, a camelCase of a REST key) fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isInputObjectType, isInterfaceType, isObjectType, isSpecifiedScalarType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.ts';

/** Named by Pothos: `builder.queryType()`, `builder.mutationType()`, `builder.subscriptionType()` and the relay plugin's `Node` and `PageInfo`. */
const NAMED_BY_POTHOS = new Set(['Query', 'Mutation', 'Subscription', 'Node', 'PageInfo']);

const srcDir = fileURLToPath(new URL('../../src/', import.meta.url));
const sourceText = (dir: string): string =>
  readdirSync(dir, { withFileTypes: true })
    .map((entry) => (entry.isDirectory() ? sourceText(join(dir, entry.name)) : readFileSync(join(dir, entry.name), 'utf8')))
    .join('\n');
const source = sourceText(srcDir);

const writtenAsString = (name: string) => source.includes(`'${name}'`) || source.includes(`"${name}"`);
const writtenAsKey = (name: string) => new RegExp(`\\b${name}:`).test(source);

const types = Object.values(schema.getTypeMap()).filter(
  (type) => !type.name.startsWith('__') && !isSpecifiedScalarType(type) && !NAMED_BY_POTHOS.has(type.name),
);

describe('the names of the public schema in src/', () => {
  it('has every type name written out', () => {
    expect(types.map((type) => type.name).filter((name) => !writtenAsString(name))).toEqual([]);
  });

  it('has every field and input field name written out', () => {
    const fields = types.flatMap((type) =>
      isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)
        ? Object.keys(type.getFields()).map((field) => `${type.name}.${field}`)
        : [],
    );
    expect(fields.length).toBeGreaterThan(300);
    expect(fields.filter((path) => !writtenAsString(path.split('.')[1] as string) && !writtenAsKey(path.split('.')[1] as string))).toEqual(
      [],
    );
  });
});
