// The printed schema is committed and current, and documents every type and field (with the scope
// of every field that calls the upstream).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  type GraphQLObjectType,
  getNullableType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
} from 'graphql';
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
    // A field declares how it reaches the upstream (`extensions.fanOut`); every mutation and subscription does.
    const upstreamFields = Object.values(schema.getTypeMap())
      .filter(isObjectType)
      .flatMap((type) => Object.values(type.getFields()).map((field) => ({ type, field })))
      .filter(
        ({ type, field }) =>
          field.extensions.fanOut !== undefined || type === schema.getMutationType() || type === schema.getSubscriptionType(),
      );
    expect(upstreamFields.length).toBeGreaterThan(60);
    const unnamed = upstreamFields
      .filter(({ field }) => !/Requires scope `[a-z_]+:(read|write)`/.test(field.description ?? ''))
      .map(({ type, field }) => `${type.name}.${field.name}`);
    expect(unnamed).toEqual([]);
  });

  it('has the contract’s ids and nullability: ids, databaseIds, lists and totalCount non-null; data and connection fields nullable', () => {
    const databaseIdTypes: Record<string, string> = {
      Organization: 'UUID!',
      BatchExport: 'UUID!',
      BatchExportRun: 'UUID!',
      Domain: 'UUID!',
      Invite: 'UUID!',
      Member: 'UUID!',
      Survey: 'UUID!',
      PipelineDestination: 'Int!',
      PipelineFrontendApp: 'Int!',
      PipelineImportApp: 'Int!',
      Project: 'String!',
    };
    const wrong: string[] = [];
    for (const name of RECORD_TYPES) {
      const type = schema.getType(name);
      if (!isObjectType(type)) throw new Error(`${name} is not an object type`);
      const fields = type.getFields();
      if (String(fields.id?.type) !== 'ID!') wrong.push(`${name}.id: ${fields.id?.type}`);
      if (String(fields.databaseId?.type) !== databaseIdTypes[name]) wrong.push(`${name}.databaseId: ${fields.databaseId?.type}`);
      for (const field of Object.values(fields)) {
        if (field.name === 'id' || field.name === 'databaseId') continue;
        const listed = isListType(getNullableType(field.type));
        // A list is non-null; anything else on a record (data, a connection, a lookup) is nullable.
        if (listed !== isNonNullType(field.type)) wrong.push(`${name}.${field.name}: ${field.type}`);
      }
    }
    for (const name of ['User', 'FeatureFlag']) {
      const type = schema.getType(name);
      if (!isObjectType(type)) throw new Error(`${name} is not an object type`);
      if (type.getFields().id) wrong.push(`${name}.id exists`);
      if (String(type.getFields().databaseId?.type) !== 'Int') wrong.push(`${name}.databaseId: ${type.getFields().databaseId?.type}`);
    }
    for (const type of Object.values(schema.getTypeMap())) {
      if (isObjectType(type) && type.name.endsWith('Connection') && String(type.getFields().totalCount?.type) !== 'Int!') {
        wrong.push(`${type.name}.totalCount: ${type.getFields().totalCount?.type}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('leaves a field named as the value it reads without a resolver, so graphql-jit reads it inline', () => {
    // A resolver, however small, costs a resolve info, a response path and three closures per field of
    // every record (docs/decisions/0004-compiled-execution.md). A Pothos plugin that
    // wraps every resolver would bring them back; this says so.
    const inline = [
      'Organization.name',
      'Organization.slug',
      'BatchExport.name',
      'BatchExport.paused',
      'BatchExport.interval',
      'BatchExport.destination',
      'Domain.domain',
      'Member.level',
      'Member.user',
      'User.email',
      'User.uuid',
      'PipelineDestination.name',
      'Project.name',
      'OrganizationConnection.totalCount',
    ];
    const withResolver = inline.filter((coordinate) => {
      const [typeName, fieldName] = coordinate.split('.') as [string, string];
      const type = schema.getType(typeName);
      if (!isObjectType(type)) return true;
      return type.getFields()[fieldName]?.resolve !== undefined;
    });
    expect(withResolver).toEqual([]);
    // A field whose REST key differs still reads it through its resolver.
    expect((schema.getType('Organization') as GraphQLObjectType).getFields().createdAt?.resolve).toBeTypeOf('function');
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
