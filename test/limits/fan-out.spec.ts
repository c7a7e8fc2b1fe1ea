// The fan-out budget: operations that could make more upstream calls than MAX_UPSTREAM_CALLS are
// refused before any call, with the estimate and the budget; a runtime cap backs the estimate up.
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimateUpstreamCalls } from '../../src/limits/fan-out.ts';
import { schema } from '../../src/schema/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';

const estimate = (query: string, variables: Record<string, unknown> = {}) => estimateUpstreamCalls(schema, parse(query), undefined, variables);

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

  it('counts node once, nodes once per id, and plain fields not at all', () => {
    expect(estimate(`{ node(id: "x") { id } nodes(ids: ["a", "b", "c"]) { id } project(databaseId: "1") { databaseId } }`)).toBe(1 + 3);
    expect(estimate(`{ organizations(first: 0) { nodes { batchExports { totalCount } } } }`)).toBe(1);
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
    const { data, errors, calls } = await small.runCounting(`{ organizations(first: 1) { nodes { name projects { databaseId surveys { totalCount } } } } }`);
    expect(calls).toHaveLength(2);
    const projects = (data as any).organizations.nodes[0].projects;
    expect(projects).toHaveLength(2);
    expect(projects.filter((p: any) => p.surveys === null)).toHaveLength(1);
    expect(errors).toEqual([expect.objectContaining({ extensions: { code: 'QUERY_TOO_COMPLEX', budget: 2 } })]);
  });
});
