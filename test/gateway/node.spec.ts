// Global ids: every Node type round-trips through `node` and `nodes`, nested records included, at
// the fewest upstream calls; malformed ids fail before any call; missing records are null.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../generated/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { UNKNOWN_UUID } from '../support/ids.ts';
import { RECORD_TYPES } from '../support/record-types.ts';
import { restGet } from '../support/rest.ts';

const AllIds = graphql(`
  query AllIds($org: UUID!) {
    organization(databaseId: $org) {
      id databaseId
      projects { id databaseId surveys(first: 1) { nodes { id databaseId } } }
      batchExports(first: 100) { nodes { id databaseId latestRuns { id databaseId } } }
      domains(first: 1) { nodes { id databaseId } }
      invites(first: 1) { nodes { id databaseId } }
      members(first: 1) { nodes { id databaseId } }
      pipelineDestinations(first: 1) { nodes { id databaseId } }
      pipelineFrontendApps(first: 1) { nodes { id databaseId } }
      pipelineImportApps(first: 1) { nodes { id databaseId } }
    }
  }
`);

const NodeById = graphql(`
  query NodeById($id: ID!) {
    node(id: $id) {
      __typename
      id
      ... on Organization { databaseId }
      ... on BatchExport { databaseId }
      ... on BatchExportRun { databaseId }
      ... on Domain { databaseId }
      ... on Invite { databaseId }
      ... on Member { databaseId }
      ... on PipelineItem { itemId: databaseId }
      ... on Project { projectId: databaseId name }
      ... on Survey { databaseId }
    }
  }
`);

const NodesByIds = graphql(`
  query NodesByIds($ids: [ID!]!) {
    nodes(ids: $ids) { __typename id }
  }
`);

const ListThenLookup = graphql(`
  query ListThenLookup($org: UUID!, $export: UUID!) {
    organization(databaseId: $org) {
      batchExports(first: 100) { totalCount }
      exports: batchExports(first: 100) { nodes { databaseId } }
      batchExport(databaseId: $export) { name }
      again: batchExport(databaseId: $export) { databaseId }
    }
  }
`);

let h: Harness;
let org: string;
/** typename -> [global id, REST id] of one record of each type. */
const samples = new Map<string, [string, string | number]>();

const encode = (raw: string) => Buffer.from(raw).toString('base64');

beforeAll(async () => {
  h = await startHarness();
  const orgs = await restGet<{ results: { id: string }[] }>(h.api.url, '/api/organizations/', h.api.keys.demo);
  // The organization with the most batch exports has runs and every other family populated.
  const counted = await Promise.all(
    orgs.results.map(
      async (o) => [o.id, (await restGet(h.api.url, `/api/organizations/${o.id}/batch_exports/?limit=1`, h.api.keys.demo)).count] as const,
    ),
  );
  org = counted.sort((a, b) => b[1] - a[1])[0]?.[0] as string;
  const { data } = await h.run(AllIds, { org });
  const o = data.organization;
  if (!o) throw new Error('no organization');
  const project = o.projects.find((p) => (p.surveys?.nodes.length ?? 0) > 0);
  const exportWithRun = o.batchExports?.nodes.find((e) => e.latestRuns.length > 0);
  const first = <T>(nodes: T[] | undefined) => nodes?.[0] as T;
  samples.set('Organization', [o.id, o.databaseId]);
  samples.set('Project', [project?.id as string, project?.databaseId as string]);
  samples.set('Survey', [first(project?.surveys?.nodes).id, first(project?.surveys?.nodes).databaseId]);
  samples.set('BatchExport', [exportWithRun?.id as string, exportWithRun?.databaseId as string]);
  samples.set('BatchExportRun', [first(exportWithRun?.latestRuns).id, first(exportWithRun?.latestRuns).databaseId]);
  for (const [typename, field] of [
    ['Domain', 'domains'],
    ['Invite', 'invites'],
    ['Member', 'members'],
    ['PipelineDestination', 'pipelineDestinations'],
    ['PipelineFrontendApp', 'pipelineFrontendApps'],
    ['PipelineImportApp', 'pipelineImportApps'],
  ] as const) {
    const node = first(o[field]?.nodes as { id: string; databaseId: string | number }[] | undefined);
    samples.set(typename, [node.id, node.databaseId]);
  }
});
afterAll(() => h.close());

describe('node(id)', () => {
  it('has a sample of every Node type', () => {
    expect([...samples.keys()].sort()).toEqual(RECORD_TYPES);
    for (const [typename, [id]] of samples) expect(id, typename).toMatch(/^[A-Za-z0-9+/=]+$/);
  });

  // Upstream calls one lookup costs: a retrieve where REST has one; runs come with their export;
  // invites and members are found by paging their organization's list; a project needs none.
  const expectedCalls: Record<string, RegExp[]> = {
    Organization: [/^GET \/api\/organizations\/[\w-]+\/$/],
    BatchExport: [/^GET \/api\/organizations\/[\w-]+\/batch_exports\/[\w-]+\/$/],
    BatchExportRun: [/^GET \/api\/organizations\/[\w-]+\/batch_exports\/[\w-]+\/$/],
    Domain: [/^GET \/api\/organizations\/[\w-]+\/domains\/[\w-]+\/$/],
    Invite: [/^GET \/api\/organizations\/[\w-]+\/invites\/\?limit=100&offset=0$/],
    Member: [/^GET \/api\/organizations\/[\w-]+\/members\/\?limit=100&offset=0$/],
    PipelineDestination: [/^GET \/api\/organizations\/[\w-]+\/pipeline_destinations\/\d+\/$/],
    PipelineFrontendApp: [/^GET \/api\/organizations\/[\w-]+\/pipeline_frontend_apps\/\d+\/$/],
    PipelineImportApp: [/^GET \/api\/organizations\/[\w-]+\/pipeline_import_apps\/\d+\/$/],
    Project: [],
    Survey: [/^GET \/api\/projects\/[\w-]+\/surveys\/[\w-]+\/$/],
  };

  it.each(Object.keys(expectedCalls))('resolves a %s by its global id with the fewest upstream calls', async (typename) => {
    const [id, databaseId] = samples.get(typename) as [string, string];
    const { data, errors, routes } = await h.runCounting(NodeById, { id });
    expect(errors).toBeUndefined();
    expect(data.node).toMatchObject({ __typename: typename, id });
    const node = data.node as { databaseId?: string; itemId?: number; projectId?: string };
    expect(node.databaseId ?? node.itemId ?? node.projectId).toBe(databaseId);
    expect(routes).toHaveLength(expectedCalls[typename]?.length ?? -1);
    for (const [i, route] of routes.entries()) expect(route).toMatch(expectedCalls[typename]?.[i] as RegExp);
  });

  it('gives a project one global id however it is reached, without an upstream call', async () => {
    const [id, databaseId] = samples.get('Project') as [string, string];
    const direct = await h.runCounting(`query($p: String!) { project(databaseId: $p) { id databaseId name } }`, { p: databaseId });
    expect(direct.data).toEqual({ project: { id, databaseId, name: null } });
    expect(direct.calls).toHaveLength(0);
  });

  it('refuses a project databaseId its global id could not carry (empty, "." or "..") with BAD_USER_INPUT and no call', async () => {
    const query = `query($p: String!) { project(databaseId: $p) { id surveys(first: 1) { totalCount } } }`;
    for (const p of ['', '.', '..']) {
      const { data, errors, calls } = await h.runCounting(query, { p });
      // Refused before the operation runs (src/schema/argument-checks.ts).
      expect(data).toBeNull();
      expect(errors).toEqual([
        expect.objectContaining({ path: ['project'], extensions: { code: 'BAD_USER_INPUT', argumentName: 'databaseId' } }),
      ]);
      expect(calls).toHaveLength(0);
    }
  });

  it('answers null for a well-formed id of a record the upstream does not have', async () => {
    const [orgId] = samples.get('Organization') as [string, string];
    const gone = UNKNOWN_UUID;
    const realOrg = Buffer.from(orgId, 'base64').toString().split(':')[1];
    for (const raw of [
      `Organization:${gone}`,
      `BatchExport:${realOrg}:${gone}`,
      `Invite:${realOrg}:${gone}`,
      `PipelineDestination:${realOrg}:999999`,
    ]) {
      const { data, errors } = await h.run(NodeById, { id: encode(raw) });
      expect(errors, raw).toBeUndefined();
      expect(data.node, raw).toBeNull();
    }
  });

  it.each([
    ['not base64 at all', '!!!'],
    ['an unknown type', encode('Spaceship:1')],
    ['a bad uuid part', encode('BatchExport:123:456')],
    ['too few parts', encode(`BatchExport:${UNKNOWN_UUID}`)],
    ['a dot-dot part', encode('Project:..')],
    ['an empty id', ''],
  ])('refuses %s with BAD_USER_INPUT and no upstream call', async (_label, id) => {
    const { errors, calls } = await h.runCounting(NodeById, { id });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'id' });
    expect(calls).toHaveLength(0);
  });
});

describe('nodes(ids)', () => {
  it('resolves many ids in order, nulls for missing ones, with one call per distinct REST read', async () => {
    const ids = [...samples.values()].map(([id]) => id);
    const missing = encode(`Organization:${UNKNOWN_UUID}`);
    const { data, errors, routes } = await h.runCounting(NodesByIds, { ids: [...ids, missing, ids[0] as string] });
    expect(errors).toBeUndefined();
    expect(data.nodes.map((n) => n?.id ?? null)).toEqual([...ids, null, ids[0]]);
    // One call per distinct REST read, sent together: a retrieve per record (the run shares its
    // export's), one page per list without a retrieve, none for the project, duplicates made once.
    const rest = (typename: string) => samples.get(typename)?.[1];
    const orgPath = `/api/organizations/${org}`;
    expect(routes.sort()).toEqual(
      [
        `GET ${orgPath}/`,
        `GET /api/organizations/${UNKNOWN_UUID}/`,
        `GET ${orgPath}/batch_exports/${rest('BatchExport')}/`,
        `GET ${orgPath}/domains/${rest('Domain')}/`,
        `GET ${orgPath}/invites/?limit=100&offset=0`,
        `GET ${orgPath}/members/?limit=100&offset=0`,
        `GET ${orgPath}/pipeline_destinations/${rest('PipelineDestination')}/`,
        `GET ${orgPath}/pipeline_frontend_apps/${rest('PipelineFrontendApp')}/`,
        `GET ${orgPath}/pipeline_import_apps/${rest('PipelineImportApp')}/`,
        `GET /api/projects/${rest('Project')}/surveys/${rest('Survey')}/`,
      ].sort(),
    );
  });

  it('fails as a whole with BAD_USER_INPUT when any id is malformed, before any call', async () => {
    const { errors, calls } = await h.runCounting(NodesByIds, { ids: [samples.get('Organization')?.[0] as string, 'garbage'] });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'ids[1]' });
    expect(calls).toHaveLength(0);
  });
});

describe('lookups next to a list', () => {
  it('cost no call of their own: the list primes them, identical pages are fetched once', async () => {
    const [, exportId] = samples.get('BatchExport') as [string, string];
    const { data, errors, routes } = await h.runCounting(ListThenLookup, { org, export: exportId });
    expect(errors).toBeUndefined();
    expect(data.organization?.batchExport?.name).toBeTruthy();
    expect(data.organization?.again?.databaseId).toBe(exportId);
    expect(data.organization?.exports?.nodes.map((n) => n.databaseId)).toContain(exportId);
    expect(routes).toEqual([`GET /api/organizations/${org}/`, `GET /api/organizations/${org}/batch_exports/?limit=100&offset=0`]);
  });
});
