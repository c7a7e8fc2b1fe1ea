// The fan-out budget: operations that could make more upstream calls than MAX_UPSTREAM_CALLS are
// refused before any call, with the estimate and the budget; a runtime cap backs the estimate up.
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateUpstreamCalls } from '../../src/limits/fan-out.ts';
import { globalId } from '../../src/schema/global-id.ts';
import { schema } from '../../src/schema/index.ts';
import { subgraphSchema } from '../../src/schema/subgraph.ts';
import { type Harness, startHarness } from '../support/harness.ts';

const estimate = (query: string, variables: Record<string, unknown> = {}, maxLookupScanPages = 10) =>
  estimateUpstreamCalls(schema, parse(query), undefined, variables, { maxLookupScanPages });

const ORG = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0001';
const OTHER_ORG = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0002';
const A = '00000000-0000-4000-8000-00000000000a';
const B = '00000000-0000-4000-8000-00000000000b';

describe('the estimate', () => {
  it('counts a lookup or connection once, times the page sizes of the connections above it', () => {
    // 1 organizations + 2 x (batchExports, domains, members, invites, pipelineDestinations) + 2 x surveys
    expect(
      estimate(`{ organizations(first: 2) { nodes {
        batchExports(first: 5) { nodes { name } } domains { nodes { domain } } members { nodes { level } }
        invites { nodes { targetEmail } } pipelineDestinations { nodes { name } }
        projects { surveys(first: 5) { nodes { name } } } } } }`),
    ).toBe(1 + 2 * 5 + 2);
  });

  it('uses 20 when a connection has no first/last, and applies variables', () => {
    const query = `query($n: Int) { organizations(first: $n) { nodes { batchExports { totalCount } } } }`;
    expect(estimate(query, { n: 7 })).toBe(1 + 7);
    expect(estimate(query, {})).toBe(1 + 20);
    expect(estimate(`{ organizations(last: 3) { nodes { domains { totalCount } } } }`)).toBe(1 + 3);
  });

  it('multiplies through nested connections, fragments and aliases', () => {
    expect(
      estimate(`
        { a: organizations(first: 10) { ...Org } b: organizations(first: 10) { nodes { id } } }
        fragment Org on OrganizationConnection { nodes { pipelineDestinations(first: 10) { nodes { checkForUpdates { name } source } } } }`),
    ).toBe(1 + 10 + 10 * 10 * 2 + 1);
  });

  it('counts plain fields not at all, and a connection of no records without its children', () => {
    expect(estimate(`{ project(databaseId: "1") { databaseId } }`)).toBe(0);
    expect(estimate(`{ organizations(first: 0) { nodes { batchExports { totalCount } } } }`)).toBe(1);
  });

  it("counts what a lookup by global id costs: a retrieve 1, a run its export's retrieve, a member or invite the scan bound, a project nothing", () => {
    const costs: [string, number][] = [
      [globalId('Organization', ORG), 1],
      [globalId('BatchExport', ORG, A), 1],
      [globalId('BatchExportRun', ORG, A, B), 1],
      [globalId('Domain', ORG, A), 1],
      [globalId('PipelineDestination', ORG, 7), 1],
      [globalId('PipelineFrontendApp', ORG, 7), 1],
      [globalId('PipelineImportApp', ORG, 7), 1],
      [globalId('Survey', '1', A), 1],
      [globalId('Invite', ORG, A), 10],
      [globalId('Member', ORG, A, B), 10],
      [globalId('Project', '1'), 0],
      ['not a global id', 0], // refused before any call
      [globalId('Spaceship', '1'), 0],
    ];
    for (const [id, cost] of costs) {
      expect(estimate(`query($id: ID!) { node(id: $id) { id } }`, { id }), id).toBe(cost);
      expect(estimate(`{ node(id: "${id}") { id } }`), id).toBe(cost);
    }
    expect(estimate(`{ node(id: "${globalId('Member', ORG, A, B)}") { id } }`, {}, 4)).toBe(4);
  });

  it('counts each distinct call once across node, nodes and aliases: one retrieve per record, one scan per list', () => {
    const exportA = globalId('BatchExport', ORG, A);
    const ids = [
      exportA,
      globalId('BatchExportRun', ORG, A, B), // export A's retrieve again
      globalId('BatchExport', ORG, B),
      globalId('BatchExport', OTHER_ORG, A), // another organization's: another record
      globalId('Member', ORG, A, B),
      globalId('Member', ORG, B, A), // the same scan of ORG's members
      globalId('Invite', ORG, A), // ORG's invites: a scan of their own
      globalId('Member', OTHER_ORG, A, B),
      globalId('Project', '1'),
      exportA,
    ];
    expect(estimate(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids })).toBe(3 + 3 * 10);
    expect(
      estimate(`query($a: ID!, $ids: [ID!]!) { a: node(id: $a) { id } b: node(id: $a) { id } nodes(ids: $ids) { id } }`, {
        a: exportA,
        ids,
      }),
    ).toBe(3 + 3 * 10);
  });

  it("counts a nodes(ids:) entry's children once per entry", () => {
    const ids = [globalId('Organization', ORG), globalId('Organization', OTHER_ORG)];
    expect(
      estimate(`query($ids: [ID!]!) { nodes(ids: $ids) { ... on Organization { batchExports(first: 5) { nodes { name } } } } }`, { ids }),
    ).toBe(2 + 2);
  });

  it('counts _entities representations like nodes(ids:), an Organization by databaseId like its global id', () => {
    const entities = (representations: unknown[]) =>
      estimateUpstreamCalls(
        subgraphSchema,
        parse(`query($r: [_Any!]!) { _entities(representations: $r) { __typename } }`),
        undefined,
        { r: representations },
        {
          maxLookupScanPages: 10,
        },
      );
    expect(
      entities([
        { __typename: 'Organization', databaseId: ORG },
        { __typename: 'Organization', id: globalId('Organization', ORG) },
        { __typename: 'BatchExport', id: globalId('BatchExport', ORG, A) },
        { __typename: 'BatchExportRun', id: globalId('BatchExportRun', ORG, A, B) },
        { __typename: 'Member', id: globalId('Member', ORG, A, B) },
        { __typename: 'Project', id: globalId('Project', '1') },
      ]),
    ).toBe(2 + 10);
    // Representations that fail before any call cost nothing: unknown or mismatched types, bad keys.
    expect(
      entities([
        { __typename: 'Nope', id: globalId('BatchExport', ORG, A) },
        { __typename: '__proto__', id: globalId('BatchExport', ORG, A) },
        { __typename: 'Domain', id: globalId('BatchExport', ORG, A) },
        { __typename: 'Organization', databaseId: 'not-a-uuid' },
        {},
        null,
        42,
      ]),
    ).toBe(0);
  });

  it('walks each fragment once however often it is spread, and still counts every spread', () => {
    // Each fragment spread twice in the one before: 2^40 spreads of the last, in 2 KB of text.
    const doubling = (on: string, last: string) =>
      Array.from({ length: 40 }, (_, i) => `fragment F${i} on ${on} { ...F${i + 1} ...F${i + 1} }`).join('\n') +
      `\nfragment F40 on ${on} { ${last} }`;
    const lookup = `node(id: "${globalId('Organization', ORG)}") { id }`;
    expect(estimate(`{ ...F0 } ${doubling('Query', `organizations(first: 1) { totalCount } ${lookup}`)}`)).toBe(2 ** 40 + 1);
    expect(estimate(`{ organizations(first: 3) { nodes { ...F0 } } } ${doubling('Organization', 'domains { totalCount }')}`)).toBe(
      1 + 3 * 2 ** 40,
    );
  });

  it('counts a mutation as a write plus a possible re-read', () => {
    expect(estimate(`mutation { pauseBatchExport(input: { id: "x" }) { __typename } }`)).toBe(2);
  });
});

describe('over HTTP', () => {
  let h: Harness;
  let small: Harness;
  beforeAll(async () => {
    h = await startHarness();
    small = await startHarness({}, { maxUpstreamCalls: 2 });
  });
  afterAll(async () => {
    await h.close();
    await small.close();
  });

  const wide = `query($n: Int) { organizations(first: $n) { nodes { batchExports(first: 100) { totalCount } domains { totalCount } members { totalCount } } } }`;

  it('refuses an operation over the budget with QUERY_TOO_COMPLEX, the estimate and the budget, and no call', async () => {
    const { data, errors, calls } = await h.runCounting(wide, { n: 100 });
    expect(data).toBeUndefined();
    expect(errors).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('301 upstream calls; the budget is 250'),
        extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'maxUpstreamCalls', estimate: 301, budget: 250 },
      }),
    ]);
    expect(calls).toHaveLength(0);
  });

  it('runs the same operation when its variables keep it within the budget', async () => {
    const { errors, calls } = await h.runCounting(wide, { n: 2 });
    expect(errors).toBeUndefined();
    expect(calls.length).toBeGreaterThan(0);
    // Estimates are remembered per document and variables: the wide variables are still refused.
    const again = await h.runCounting(wide, { n: 100 });
    expect(again.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', estimate: 301 });
    expect(again.calls).toHaveLength(0);
  });

  it('stops at the runtime cap when the estimate was low (projects are counted once)', async () => {
    // The first organization has two projects: estimate 1 + 1 = 2, real calls 1 + 2 = 3.
    const { data, errors, calls } = await small.runCounting(
      `{ organizations(first: 1) { nodes { name projects { databaseId surveys { totalCount } } } } }`,
    );
    expect(calls).toHaveLength(2);
    const projects = (data as any).organizations.nodes[0].projects;
    expect(projects).toHaveLength(2);
    expect(projects.filter((p: any) => p.surveys === null)).toHaveLength(1);
    expect(errors).toEqual([expect.objectContaining({ extensions: { code: 'QUERY_TOO_COMPLEX', budget: 2 } })]);
  });
});

describe('lookups over HTTP', () => {
  let h: Harness;
  let scanning9: Harness;
  let member: string;
  let exports: string[];
  beforeAll(async () => {
    h = await startHarness({}, { maxUpstreamCalls: 9 });
    scanning9 = await startHarness({}, { maxUpstreamCalls: 9, maxLookupScanPages: 9 });
    const { data } = await h.run<any, undefined>(
      `{ organizations(first: 1) { nodes { members(first: 1) { nodes { id } } batchExports(first: 10) { nodes { id } } } } }`,
    );
    member = data.organizations.nodes[0].members.nodes[0].id;
    exports = data.organizations.nodes[0].batchExports.nodes.map((e: { id: string }) => e.id);
    expect(exports).toHaveLength(10);
  });
  afterAll(async () => {
    await h.close();
    await scanning9.close();
  });

  const refusal = (estimate: number) => [
    expect.objectContaining({ extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'maxUpstreamCalls', estimate, budget: 9 } }),
  ];

  it('refuses a member lookup whose scan bound is over MAX_UPSTREAM_CALLS, with no upstream call', async () => {
    const { data, errors, calls } = await h.runCounting(`query($id: ID!) { node(id: $id) { id } }`, { id: member });
    expect(data).toBeUndefined();
    expect(errors).toEqual(refusal(10));
    expect(calls).toHaveLength(0);

    const within = await scanning9.runCounting(`query($id: ID!) { node(id: $id) { id } }`, { id: member });
    expect(within.errors).toBeUndefined();
    expect(within.data).toEqual({ node: { id: member } });
    expect(within.calls).toHaveLength(1);
  });

  it('refuses nodes(ids:) with more distinct retrieves than MAX_UPSTREAM_CALLS, and runs the same ids repeated', async () => {
    const { data, errors, calls } = await h.runCounting(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: exports });
    expect(data).toBeUndefined();
    expect(errors).toEqual(refusal(10));
    expect(calls).toHaveLength(0);

    const repeated = await h.runCounting(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: Array(30).fill(exports[0]) });
    expect(repeated.errors).toBeUndefined();
    expect(repeated.calls).toHaveLength(1);
  });
});
