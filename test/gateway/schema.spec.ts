// The printed schema is committed and current, and documents every type and field (with the scope
// of every field that calls the upstream).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isInputObjectType, isInterfaceType, isObjectType, isScalarType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.ts';
import { printPublicSchema } from '../../src/schema/print.ts';
import { RECORD_TYPES } from '../support/record-types.ts';

const root = new URL('../../', import.meta.url);

describe('schema.graphql', () => {
  it('is the current printed schema (run `npm run schema` when this fails)', () => {
    expect(readFileSync(new URL('schema.graphql', root), 'utf8')).toBe(printPublicSchema());
  });

  it('has a description on every type, field and argument', () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__')) continue;
      if (!type.description && !['String', 'Int', 'Boolean', 'ID', 'Float'].includes(type.name)) missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (!field.description) missing.push(`${type.name}.${field.name}`);
          for (const arg of 'args' in field ? field.args : []) {
            if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
          }
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('names the required scope on every field that calls the upstream', () => {
    const org = schema.getType('Organization');
    const project = schema.getType('Project');
    const query = schema.getQueryType();
    if (!isObjectType(org) || !isObjectType(project) || !query) throw new Error('missing root types');
    const upstreamFields = [
      ...Object.values(org.getFields()).filter((f) => f.args.length > 0 || /^pipeline.*(Activity|Configs|Repository|Unused)$/.test(f.name)),
      ...Object.values(project.getFields()).filter((f) => ['surveys', 'survey', 'surveysResponsesCount'].includes(f.name)),
      query.getFields().organizations,
      query.getFields().organization,
    ];
    expect(upstreamFields.length).toBeGreaterThan(20);
    for (const field of upstreamFields) {
      expect(field?.description, field?.name).toMatch(/Requires scope `[a-z_]+:(read|write)`\./);
    }
  });

  it('uses the contract scalars', () => {
    for (const name of ['UUID', 'DateTime', 'JSON', 'EmailAddress']) expect(isScalarType(schema.getType(name))).toBe(true);
    const node = schema.getType('Node');
    if (!isInterfaceType(node)) throw new Error('Node must be an interface');
    const implementations = schema
      .getPossibleTypes(node)
      .map((t) => t.name)
      .sort();
    expect(implementations).toEqual(RECORD_TYPES);
  });

  it('the typed documents in test/generated match the operations and schema (run `npm run codegen` when this fails)', () => {
    const codegen = new URL('node_modules/@graphql-codegen/cli/cjs/bin.js', root);
    expect(() =>
      execFileSync(process.execPath, [codegen.pathname, '--config', 'codegen.ts', '--check'], { cwd: root, stdio: 'pipe' }),
    ).not.toThrow();
  });

  it('npm run schema -- --check agrees', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'scripts/print-schema.ts', '--check'], { cwd: root, encoding: 'utf8' });
    expect(out).toContain('up to date');
  });
});
