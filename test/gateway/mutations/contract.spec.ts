// The shape the contract fixes for every mutation: its name, `<Name>Input`, `<Name>Result!` as a
// union of `<Name>Payload`, ValidationError and (all but createOrganization) NotFoundError,
// `clientMutationId` both ways, and a description naming the write scope.
import { getNamedType, isInputObjectType, isNonNullType, isObjectType, isUnionType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../../src/schema/index.ts';
import { freshOrg, mutate, orgId, useHarness } from './support.ts';

const MUTATIONS = [
  'createOrganization',
  'updateOrganization',
  'deleteOrganization',
  'createBatchExport',
  'updateBatchExport',
  'deleteBatchExport',
  'pauseBatchExport',
  'unpauseBatchExport',
  'backfillBatchExport',
  'createDomain',
  'updateDomain',
  'deleteDomain',
  'verifyDomain',
  'createInvite',
  'deleteInvite',
  'bulkCreateInvites',
  'updateMember',
  'removeMember',
  ...['PipelineDestination', 'PipelineFrontendApp'].flatMap((t) => [
    `create${t}`,
    `update${t}`,
    `delete${t}`,
    `update${t}Source`,
    `upgrade${t}`,
  ]),
  'createPipelineImportApp',
  'updatePipelineImportApp',
  'deletePipelineImportApp',
  'createSurvey',
  'updateSurvey',
  'deleteSurvey',
];

const SCOPE_OF: Record<string, string> = {
  Organization: 'organization:write',
  Domain: 'organization:write',
  BatchExport: 'batch_export:write',
  Invite: 'organization_member:write',
  Member: 'organization_member:write',
  Pipeline: 'plugin:write',
  Survey: 'survey:write',
};

describe('the Mutation type', () => {
  const fields = schema.getMutationType()?.getFields() ?? {};

  it('has exactly the contract mutations', () => {
    expect(Object.keys(fields).sort()).toEqual([...MUTATIONS].sort());
  });

  it.each(MUTATIONS)('%s: Relay input, result union, clientMutationId, scope in the description', (name) => {
    const field = fields[name];
    if (!field) throw new Error(`no ${name}`);
    const Name = name.charAt(0).toUpperCase() + name.slice(1);
    expect(field.args.map((a) => [a.name, String(a.type)])).toEqual([['input', `${Name}Input!`]]);
    expect(String(field.type)).toBe(`${Name}Result!`);
    const union = getNamedType(field.type);
    if (!isUnionType(union)) throw new Error('not a union');
    const members = union
      .getTypes()
      .map((t) => t.name)
      .sort();
    const expected =
      name === 'createOrganization' ? [`${Name}Payload`, 'ValidationError'] : [`${Name}Payload`, 'NotFoundError', 'ValidationError'];
    expect(members).toEqual(expected.sort());
    const payload = schema.getType(`${Name}Payload`);
    const input = schema.getType(`${Name}Input`);
    if (!isObjectType(payload) || !isInputObjectType(input)) throw new Error('missing payload or input');
    expect(payload.getFields().clientMutationId).toBeDefined();
    expect(input.getFields().clientMutationId).toBeDefined();
    const scope = Object.entries(SCOPE_OF).find(([type]) => name.includes(type))?.[1];
    expect(field.description).toContain(`Requires scope \`${scope}\`.`);
    expect(input.description).toContain(`Requires scope \`${scope}\`.`);
  });

  it('delete payloads carry a non-null deletedId; record payloads a non-null record', () => {
    for (const name of MUTATIONS) {
      const payload = schema.getType(`${name.charAt(0).toUpperCase()}${name.slice(1)}Payload`);
      if (!isObjectType(payload)) throw new Error(name);
      const own = Object.values(payload.getFields()).filter((f) => !['clientMutationId', 'backfillId'].includes(f.name));
      expect(own, name).toHaveLength(1);
      expect(isNonNullType(own[0]?.type), name).toBe(true);
      if (/^(delete|remove)/.test(name)) expect(own[0]?.name).toBe('deletedId');
    }
  });
});

describe('mutations without a key', () => {
  const harness = useHarness();

  it('are UNAUTHENTICATED with no upstream call', async () => {
    const h = harness();
    const run = await mutate(h, 'updateOrganization', { id: orgId(freshOrg(h.api)), name: 'x' }, { key: null });
    expect(run.result).toBeNull();
    expect(run.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(run.calls).toEqual([]);
  });
});
