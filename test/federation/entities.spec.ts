// `_entities`: representations resolve through the request's loaders, so a federation gateway's
// batch costs what `nodes(ids:)` would (contract: Identifiers): one retrieve per distinct record, all
// at once, one scan per list without a retrieve, nothing for a record a list page of the request
// holds. Bad representations fail alone before any call; no key means no call at all.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_IDS } from '../../src/reference-api/demo-users.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { UNKNOWN_UUID } from '../support/ids.ts';
import { RECORD_TYPES } from '../support/record-types.ts';

const ENTITIES = `
  query Entities($representations: [_Any!]!) {
    _entities(representations: $representations) {
      __typename
      ... on Node { id }
      ... on Organization { databaseId name }
      ... on BatchExport { name }
      ... on BatchExportRun { status }
      ... on Domain { domain }
      ... on Member { level user { email } }
      ... on Project { projectId: databaseId }
    }
  }
`;

/** The `_Entity` union's members. */
const ENTITY_TYPES = new Set(RECORD_TYPES);

type Entity = { __typename: string; id?: string; databaseId?: string; projectId?: string; name?: string } | null;
type Representation = { __typename: string } & Record<string, unknown>;

const OrganizationIds = `
  query OrganizationIds($org: UUID!) {
    organization(databaseId: $org) {
      id
      projects { id }
      batchExports(first: 100) { nodes { id name latestRuns { id } } }
      domains { nodes { id domain } }
      members { nodes { id } }
    }
  }
`;

interface OrganizationIdsResult {
  organization: {
    id: string;
    projects: { id: string }[];
    batchExports: { nodes: { id: string; name: string; latestRuns: { id: string }[] }[] };
    domains: { nodes: { id: string; domain: string }[] };
    members: { nodes: { id: string }[] };
  };
}

let h: Harness;
/** A fresh organization: 12 batch exports (the first with a run), 3 domains, 2 members. */
let org: { databaseId: string; ids: OrganizationIdsResult['organization'] };

beforeAll(async () => {
  // Past MAX_LOOKUP_IDS' default (250): the fan-out budget's tests below send 251 and 502
  // representations (the bound has its own spec, test/limits/amplification.spec.ts).
  h = await startHarness({ demoData: false }, { maxLookupIds: 1000 });
  const { store } = h.api;
  const record = store.addOrganization({ name: 'Federated Inc' }, { owner: USER_IDS.demo });
  store.addMembership(record.id, USER_IDS.alice, 1);
  for (let i = 1; i <= 12; i++) {
    const exportRecord = store.addBatchExport(record.id, { name: `export ${String(i).padStart(2, '0')}` });
    if (i === 1) store.addBatchExportRun(exportRecord, { data_interval_end: '2026-01-05T10:00:00Z', status: 'Completed' });
  }
  for (const domain of ['a.example', 'b.example', 'c.example']) store.addDomain(record.id, { domain });
  const { data, errors } = await h.run<OrganizationIdsResult, { org: string }>(OrganizationIds, { org: record.id });
  expect(errors).toBeUndefined();
  org = { databaseId: record.id, ids: data.organization };
});
afterAll(() => h.close());

/** The REST id a record's global id ends with. */
const restIdOf = (globalId: string) => Buffer.from(globalId, 'base64').toString().split(':').at(-1);

const entities = (representations: Representation[], key?: string | null) =>
  h.runCounting<{ _entities: Entity[] }, { representations: Representation[] }>(ENTITIES, { representations }, { key });

describe('_entities', () => {
  it('resolves 10 batch exports, a run, 3 domains, 2 members, a project and the organization (by databaseId and by id) with 15 calls', async () => {
    const { ids, databaseId } = org;
    const exports = ids.batchExports.nodes.slice(0, 10);
    const run = ids.batchExports.nodes[0]?.latestRuns[0]?.id as string;
    const representations: Representation[] = [
      { __typename: 'Organization', databaseId },
      ...exports.map(({ id }) => ({ __typename: 'BatchExport', id })),
      { __typename: 'BatchExportRun', id: run },
      ...ids.domains.nodes.map(({ id }) => ({ __typename: 'Domain', id })),
      ...ids.members.nodes.map(({ id }) => ({ __typename: 'Member', id })),
      { __typename: 'Project', id: ids.projects[0]?.id as string },
      { __typename: 'Organization', id: ids.id },
    ];
    expect(representations).toHaveLength(19);

    const { data, errors, routes } = await entities(representations);
    expect(errors).toBeUndefined();

    // In order, each of its representation's type, with its data.
    expect(data._entities.map((e) => e?.__typename)).toEqual(representations.map((r) => r.__typename));
    expect(data._entities[0]).toMatchObject({ id: ids.id, databaseId, name: 'Federated Inc' });
    expect(data._entities.slice(1, 11).map((e) => e?.name)).toEqual(exports.map((e) => e.name));
    expect(data._entities[11]).toMatchObject({ id: run, status: 'Completed' });
    expect(data._entities.slice(12, 15)).toEqual(ids.domains.nodes.map((d) => ({ __typename: 'Domain', ...d })));
    expect(data._entities.slice(15, 17).map((e) => e?.id)).toEqual(ids.members.nodes.map((m) => m.id));
    expect(data._entities.at(-1)).toMatchObject({ id: ids.id, databaseId });

    // One call per distinct REST read the representations need, all in one round:
    // - the organization: one retrieve, shared by its databaseId and id representations;
    // - 10 batch exports: one retrieve each (the run comes with its export's);
    // - 3 domains: one retrieve each;
    // - 2 members (no REST retrieve): one scan of the list, here its first page;
    // - the project: none (its id is all it has).
    expect(routes.sort()).toEqual(
      [
        `GET /api/organizations/${databaseId}/`,
        ...exports.map(({ id }) => `GET /api/organizations/${databaseId}/batch_exports/${restIdOf(id)}/`),
        ...ids.domains.nodes.map(({ id }) => `GET /api/organizations/${databaseId}/domains/${restIdOf(id)}/`),
        `GET /api/organizations/${databaseId}/members/?limit=100&offset=0`,
      ].sort(),
    );
  });

  it('resolves one representation with one retrieve', async () => {
    const id = org.ids.batchExports.nodes[4]?.id as string;
    const { data, errors, routes } = await entities([{ __typename: 'BatchExport', id }]);
    expect(errors).toBeUndefined();
    expect(data._entities).toEqual([{ __typename: 'BatchExport', id, name: 'export 05' }]);
    expect(routes).toEqual([expect.stringMatching(/^GET \/api\/organizations\/[\w-]+\/batch_exports\/[\w-]+\/$/)]);
  });

  it('refuses a representation literal with a variable inside (graphql-jit would drop its value), and takes the same as one variable', async () => {
    const id = org.ids.batchExports.nodes[4]?.id as string;
    const literal = await h.runCounting(
      'query ($id: ID!) { _entities(representations: [{ __typename: "BatchExport", id: $id }]) { __typename } }',
      {
        id,
      },
    );
    expect(literal.errors).toEqual([
      expect.objectContaining({
        message: 'A representation literal cannot hold a variable: pass the representations as one variable.',
        extensions: { code: 'BAD_USER_INPUT' },
      }),
    ]);
    expect(literal.routes).toEqual([]);
    const { data, errors } = await entities([{ __typename: 'BatchExport', id }]);
    expect(errors).toBeUndefined();
    expect(data._entities).toEqual([{ __typename: 'BatchExport', id, name: 'export 05' }]);
  });

  it('answers null for a record the upstream does not have, without an error', async () => {
    const gone = UNKNOWN_UUID;
    const { data, errors } = await entities([{ __typename: 'Organization', databaseId: gone }]);
    expect(errors).toBeUndefined();
    expect(data._entities).toEqual([null]);
  });

  it('fails a malformed representation alone, with BAD_USER_INPUT and no upstream call', async () => {
    const domainId = org.ids.domains.nodes[0]?.id as string;
    const { data, errors, routes } = await entities([
      { __typename: 'Project', id: org.ids.projects[0]?.id as string },
      { __typename: 'BatchExport', id: 'not-a-global-id' },
      { __typename: 'BatchExport', id: domainId }, // a Domain's id under another type
      { __typename: 'Organization', databaseId: 'not-a-uuid' },
    ]);
    expect(data._entities.map((e) => e?.__typename ?? null)).toEqual(['Project', null, null, null]);
    expect(errors?.map((e) => [e.path, e.extensions?.code])).toEqual([
      [['_entities', 1], 'BAD_USER_INPUT'],
      [['_entities', 2], 'BAD_USER_INPUT'],
      [['_entities', 3], 'BAD_USER_INPUT'],
    ]);
    expect(routes).toEqual([]);
  });

  it('fails a representation that names no entity type alone: its entry is null with BAD_USER_INPUT, the others resolve with their own calls', async () => {
    const good: Representation[] = [
      { __typename: 'BatchExport', id: org.ids.batchExports.nodes[2]?.id as string },
      { __typename: 'Domain', id: org.ids.domains.nodes[1]?.id as string },
      { __typename: 'Organization', databaseId: org.databaseId },
    ];
    const alone = await entities(good);
    expect(alone.errors).toBeUndefined();
    const expectedCalls = [...alone.routes].sort();
    expect(expectedCalls.length).toBeGreaterThan(0);

    // Types that do not exist, names on Object.prototype, types that are no entity, no type at all, and no object at all.
    const typenames = ['Nope', 'constructor', '__proto__', 'toString', 'Query', 'User', 'Node', 'PipelineItem', 'String', '_Entity'];
    const notAnEntity = fc.oneof(
      fc.constantFrom(...typenames).map((__typename) => ({ __typename })),
      fc
        .string()
        .filter((name) => !ENTITY_TYPES.has(name))
        .map((__typename) => ({ __typename, id: org.ids.id })),
      fc.constant({}),
      fc.constant(JSON.parse('{"__proto__": {"__typename": "Organization"}}') as object),
      fc.record({ __typename: fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.constantFrom('Organization'))) }),
      fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant([{ __typename: 'Organization', databaseId: org.databaseId }])),
    );
    // Bad representations at random places among the good ones, which keep their order.
    const mixed = fc.array(fc.tuple(fc.nat(good.length), notAnEntity), { minLength: 1, maxLength: 6 }).map((inserts) => {
      const slots: { bad?: unknown; good?: Representation }[][] = good.map((representation) => [{ good: representation }]);
      slots.push([]);
      for (const [at, bad] of inserts) slots[at]!.unshift({ bad });
      return slots.flat();
    });

    await fc.assert(
      fc.asyncProperty(mixed, async (entries) => {
        const { data, errors, routes } = await entities(entries.map((entry) => (entry.good ?? entry.bad) as Representation));
        const badAt = entries.flatMap((entry, index) => (entry.bad === undefined ? [] : [index]));
        expect(errors?.map((error) => [error.path, error.extensions?.code])).toEqual(
          badAt.map((index) => [['_entities', index], 'BAD_USER_INPUT']),
        );
        entries.forEach((entry, index) => {
          if (entry.good) expect(data._entities[index]?.__typename).toBe(entry.good.__typename);
          else expect(data._entities[index]).toBeNull();
        });
        expect([...routes].sort()).toEqual(expectedCalls);
      }),
      { numRuns: 25 },
    );
  });

  it('answers only bad representations with no upstream call at all', async () => {
    const { data, errors, routes } = await entities([{ __typename: 'Nope' }, {} as Representation, { __typename: 'constructor' }]);
    expect(data._entities).toEqual([null, null, null]);
    expect(errors?.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT', 'BAD_USER_INPUT', 'BAD_USER_INPUT']);
    expect(errors?.[0]?.message).toMatch(/^A representation must be an object whose `__typename` is an entity type: BatchExport, /);
    expect(routes).toEqual([]);
  });

  it('counts one upstream call per distinct retrieve against the fan-out budget (250 by default), none for a project', async () => {
    const absentExport = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const exportOf = (i: number) => ({
      __typename: 'BatchExport',
      id: Buffer.from(`BatchExport:${org.databaseId}:${absentExport(i)}`).toString('base64'),
    });
    const { data, errors, routes } = await entities(Array.from({ length: 251 }, (_, i) => exportOf(i)));
    expect(data).toBeFalsy();
    expect(errors?.map((e) => [e.extensions?.code, e.extensions?.estimate])).toEqual([['QUERY_TOO_COMPLEX', 251]]);
    expect(routes).toEqual([]);

    const project = { __typename: 'Project', id: org.ids.projects[0]?.id as string };
    const cheap = await entities([...Array.from({ length: 251 }, () => project), ...Array.from({ length: 251 }, () => exportOf(1))]);
    expect(cheap.errors).toBeUndefined();
    expect(cheap.data._entities.slice(-1)).toEqual([null]); // a well-formed id of an export the upstream does not have
    expect(cheap.routes).toEqual([`GET /api/organizations/${org.databaseId}/batch_exports/${absentExport(1)}/`]);
  });

  it('counts a representation it cannot resolve as one call too: 251 of them are refused whole, without a key, before any error is made', async () => {
    // 34,000 `{}` fit in 100 KB and answered 11 MB of errors, one per entry.
    const { data, errors, routes } = await entities(
      Array.from({ length: 251 }, () => ({}) as Representation),
      null,
    );
    expect(data).toBeFalsy();
    expect(errors?.map((e) => [e.extensions?.code, e.extensions?.limit, e.extensions?.estimate])).toEqual([
      ['QUERY_TOO_COMPLEX', 'maxUpstreamCalls', 251],
    ]);
    expect(routes).toEqual([]);
  });

  it('without a key, fails every representation that needs the upstream with UNAUTHENTICATED and makes no call', async () => {
    const { data, errors, routes } = await entities(
      [
        { __typename: 'Organization', databaseId: org.databaseId },
        { __typename: 'BatchExport', id: org.ids.batchExports.nodes[0]?.id as string },
        { __typename: 'Member', id: org.ids.members.nodes[0]?.id as string },
      ],
      null,
    );
    expect(data._entities).toEqual([null, null, null]);
    expect(errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED', 'UNAUTHENTICATED']);
    expect(routes).toEqual([]);
  });
});

describe('_service', () => {
  it('answers the whole SDL once per document: a second copy (an alias) is refused like a second `__schema`', async () => {
    const { data, errors } = await h.runCounting<unknown, undefined>('{ a: _service { sdl } b: _service { sdl } }', undefined, {
      key: null,
    });
    expect(data).toBeFalsy();
    expect(errors?.map((e) => [e.extensions?.code, e.extensions?.limit])).toEqual([['QUERY_TOO_COMPLEX', 'maxIntrospectionSchemas']]);
  });

  it('answers the committed subgraph SDL without a key and without an upstream call', async () => {
    const { data, errors, routes } = await h.runCounting<{ _service: { sdl: string } }, undefined>('{ _service { sdl } }', undefined, {
      key: null,
    });
    expect(errors).toBeUndefined();
    expect(`${data._service.sdl}\n`).toBe(readFileSync(new URL('../../subgraph.graphql', import.meta.url), 'utf8'));
    expect(routes).toEqual([]);
  });
});
