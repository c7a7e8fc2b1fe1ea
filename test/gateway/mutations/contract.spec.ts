// The shape the contract fixes for every mutation: its name, `<Name>Input`, `<Name>Result!` as a
// union of `<Name>Payload`, ValidationError and (all but createOrganization) NotFoundError,
// `clientMutationId` both ways, and a description naming the write scope. Last, several mutations
// in one operation: a bad global id in any stops them all, a failed one the rest.
import { getNamedType, isInputObjectType, isNonNullType, isObjectType, isUnionType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../../src/gateway.ts';
import { startReferenceApi } from '../../../src/reference-api/index.ts';
import { schema } from '../../../src/schema/index.ts';
import { useHarness } from '../../support/harness.ts';
import { UNKNOWN_UUID } from '../../support/ids.ts';
import { sendJson } from '../../support/scripted-answers.ts';
import { freshOrg, globalId, mutate, orgId, unique } from './support.ts';

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
    const errors = name === 'createOrganization' ? ['ValidationError'] : ['NotFoundError', 'ValidationError'];
    // Creates and updates also say when the upstream did not apply a field (contract: The real service).
    const notApplied = /^(create|update)[A-Z]/.test(name) && !name.endsWith('Source') ? ['NotAppliedError'] : [];
    const expected = [`${Name}Payload`, ...errors, ...notApplied];
    expect(members).toEqual(expected.sort());
    const payload = schema.getType(`${Name}Payload`);
    const input = schema.getType(`${Name}Input`);
    if (!isObjectType(payload) || !isInputObjectType(input)) throw new Error('missing payload or input');
    expect(payload.getFields().clientMutationId).toBeDefined();
    expect(input.getFields().clientMutationId).toBeDefined();
    const scope = Object.entries(SCOPE_OF).find(([type]) => name.includes(type))?.[1];
    expect(field.description).toContain(`Requires scope \`${scope}\`.`);
    expect(input.description).toContain(`Requires scope \`${scope}\`.`);
    // Every global id of the input is checked before any mutation of the operation runs.
    for (const idField of Object.values(input.getFields()).filter((f) => String(f.type) === 'ID!')) {
      expect(idField.extensions.globalIdOf, `${name}.${idField.name}`).toEqual(expect.any(String));
    }
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

describe('several mutations in one operation', () => {
  const OTHER_UUID = '00000000-0000-4000-8000-000000000001';
  const harness = useHarness();
  const TWO_DELETES = (first: string, second: string) =>
    `mutation($first: ID!, $second: ID!) { ${first}: deleteDomain(input: { id: $first }) { __typename } ${second}: deleteDomain(input: { id: $second }) { __typename } }`;

  it('a malformed or wrong-type global id in any of them is BAD_USER_INPUT before any runs: no upstream call, in either order', async () => {
    const h = harness();
    const org = freshOrg(h.api);
    const domain = h.api.store.addDomain(org.id, { domain: `${unique('kept')}.example` });
    const valid = globalId('Domain', org.id, domain.id);
    for (const bad of ['not-an-id', orgId(org)]) {
      for (const [first, second, variables] of [
        ['bad', 'valid', { first: bad, second: valid }],
        ['valid', 'bad', { first: valid, second: bad }],
      ] as const) {
        const run = await h.runCounting(TWO_DELETES(first, second), variables);
        expect(run.data).toBeNull();
        expect(run.errors).toEqual([
          expect.objectContaining({ path: ['bad'], extensions: { argumentName: 'input.id', code: 'BAD_USER_INPUT' } }),
        ]);
        expect(run.calls).toEqual([]);
        expect(h.api.store.domains.has(domain.id)).toBe(true);
      }
    }
  });

  it('after one fails with a GraphQL error, those after it are not run, and leave no error of their own', async () => {
    const upstream = await startReferenceApi();
    upstream.answerWith((_req, res) => sendJson(res, 503, { detail: 'down' }));
    const gateway = createGateway({ upstreamUrl: upstream.url });
    try {
      const [first, second] = [globalId('Domain', UNKNOWN_UUID, UNKNOWN_UUID), globalId('Domain', UNKNOWN_UUID, OTHER_UUID)];
      const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer phx_serial_key' },
        body: JSON.stringify({ query: TWO_DELETES('a', 'b'), variables: { first, second } }),
      });
      const body = await response.json();
      expect(body.data).toBeNull();
      expect(body.errors).toEqual([
        expect.objectContaining({ path: ['a'], extensions: expect.objectContaining({ code: 'UPSTREAM_ERROR' }) }),
      ]);
      expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        `DELETE /api/organizations/${UNKNOWN_UUID}/domains/${UNKNOWN_UUID}/`,
      ]);
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });
});
