// Relay connections over REST limit/offset: every argument combination, cursor checks, a capped
// upstream, and the smallest page when only totalCount is asked for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../generated/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { restGet } from '../support/rest.ts';

const ExportsPage = graphql(`
  query ExportsPage($org: UUID!, $first: Int, $after: String, $last: Int, $before: String) {
    organization(databaseId: $org) {
      batchExports(first: $first, after: $after, last: $last, before: $before) {
        totalCount
        edges { cursor node { databaseId } }
        nodes { databaseId }
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      }
    }
  }
`);

const ExportsCount = graphql(`
  query ExportsCount($org: UUID!) {
    organization(databaseId: $org) { batchExports { totalCount } }
  }
`);

const DomainCursor = graphql(`
  query DomainCursor($org: UUID!) {
    organization(databaseId: $org) { domains(first: 1) { pageInfo { endCursor } } }
  }
`);

let h: Harness;
let org: string;
let otherOrg: string;
/** The export ids in the upstream's own order. */
let allIds: string[];

beforeAll(async () => {
  h = await startHarness();
  const orgs = await restGet<{ results: { id: string }[] }>(h.api.url, '/api/organizations/', h.api.keys.demo);
  const counts = await Promise.all(
    orgs.results.map(async (o) => ({
      id: o.id,
      count: (await restGet<{ count: number }>(h.api.url, `/api/organizations/${o.id}/batch_exports/?limit=1`, h.api.keys.demo)).count,
    })),
  );
  const big = counts.find((c) => c.count >= 30);
  if (!big) throw new Error('the demo data needs an organization with 30+ batch exports');
  org = big.id;
  otherOrg = (counts.find((c) => c.id !== org) as { id: string }).id;
  const all = await restGet<{ results: { id: string }[] }>(
    h.api.url,
    `/api/organizations/${org}/batch_exports/?limit=100`,
    h.api.keys.demo,
  );
  allIds = all.results.map((r) => r.id);
});
afterAll(() => h.close());

const path = () => `/api/organizations/${org}/batch_exports/`;
const listCalls = (routes: string[]) => routes.filter((r) => r.includes('/batch_exports/'));

async function page(variables: { first?: number; after?: string; last?: number; before?: string }) {
  const result = await h.runCounting(ExportsPage, { org, ...variables });
  expect(result.errors).toBeUndefined();
  const connection = result.data.organization?.batchExports;
  if (!connection) throw new Error('no connection');
  return { connection, ids: connection.nodes.map((n) => n.databaseId), calls: listCalls(result.routes) };
}

describe('connections', () => {
  it('default to the first 20 records, with exact page info and one upstream call', async () => {
    const { connection, ids, calls } = await page({});
    expect(ids).toEqual(allIds.slice(0, 20));
    expect(connection.edges.map((e) => e.node.databaseId)).toEqual(ids);
    expect(connection.totalCount).toBe(allIds.length);
    expect(connection.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(connection.pageInfo.startCursor).toBe(connection.edges[0]?.cursor);
    expect(connection.pageInfo.endCursor).toBe(connection.edges.at(-1)?.cursor);
    expect(calls).toEqual([`GET ${path()}?limit=20&offset=0`]);
  });

  it('page forward with first/after through the whole list', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    const offsets: string[] = [];
    for (;;) {
      const { connection, ids, calls } = await page({ first: 15, after });
      seen.push(...ids);
      offsets.push(...calls);
      if (!connection.pageInfo.hasNextPage) break;
      after = connection.pageInfo.endCursor ?? undefined;
    }
    expect(seen).toEqual(allIds);
    expect(offsets).toEqual([0, 15, 30].map((o) => `GET ${path()}?limit=15&offset=${o}`));
  });

  it('page backward with last/before', async () => {
    const tail = await page({ last: 5 });
    expect(tail.ids).toEqual(allIds.slice(-5));
    expect(tail.connection.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
    // `count` is only known from an answer: the first call learns it, the second fetches the tail.
    expect(tail.calls).toEqual([`GET ${path()}?limit=5&offset=0`, `GET ${path()}?limit=5&offset=${allIds.length - 5}`]);

    const before = await page({ last: 5, before: tail.connection.pageInfo.startCursor ?? undefined });
    expect(before.ids).toEqual(allIds.slice(-10, -5));
    expect(before.calls).toEqual([`GET ${path()}?limit=5&offset=${allIds.length - 10}`]);
    expect(before.connection.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
  });

  it('last on a list shorter than it costs one call', async () => {
    const { ids, calls } = await page({ last: 100 });
    expect(ids).toEqual(allIds);
    expect(calls).toEqual([`GET ${path()}?limit=100&offset=0`]);
  });

  it('combine first with before, and after with before', async () => {
    const third = (await page({ first: 3 })).connection.edges[2]?.cursor;
    const tenth = (await page({ first: 10 })).connection.edges[9]?.cursor;
    expect((await page({ first: 5, before: third })).ids).toEqual(allIds.slice(0, 2));
    const between = await page({ after: third, before: tenth });
    expect(between.ids).toEqual(allIds.slice(3, 9));
    expect(between.calls).toEqual([`GET ${path()}?limit=6&offset=3`]);
  });

  it('answer an empty page past the end, and first: 0 with counts only', async () => {
    const last = (await page({ last: 1 })).connection.pageInfo.endCursor ?? undefined;
    const past = await page({ first: 5, after: last });
    expect(past.ids).toEqual([]);
    expect(past.connection.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null });
    expect(past.connection.totalCount).toBe(allIds.length);

    const zero = await page({ first: 0 });
    expect(zero.ids).toEqual([]);
    expect(zero.connection.totalCount).toBe(allIds.length);
    expect(zero.connection.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
  });

  it('give the same cursor for the same offset across requests', async () => {
    const a = await page({ first: 5 });
    const b = await page({ first: 10 });
    expect(b.connection.edges.slice(0, 5).map((e) => e.cursor)).toEqual(a.connection.edges.map((e) => e.cursor));
  });

  it('fetch the smallest page when only totalCount is selected', async () => {
    const result = await h.runCounting(ExportsCount, { org });
    expect(result.data.organization?.batchExports?.totalCount).toBe(allIds.length);
    expect(listCalls(result.routes)).toEqual([`GET ${path()}?limit=1&offset=0`]);
  });

  it('fetch the smallest page when the records are selected but left out by @include or @skip', async () => {
    const query = `query ($org: UUID!, $full: Boolean!) { organization(databaseId: $org) {
      batchExports(first: 50) { totalCount nodes @include(if: $full) { databaseId } ... on BatchExportConnection @skip(if: true) { edges { cursor } } }
    } }`;
    const result = await h.runCounting(query, { org, full: false });
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ organization: { batchExports: { totalCount: allIds.length } } });
    expect(listCalls(result.routes)).toEqual([`GET ${path()}?limit=1&offset=0`]);
    const full = await h.runCounting(query, { org, full: true });
    expect(listCalls(full.routes)).toEqual([`GET ${path()}?limit=50&offset=0`]);
  });

  it.each([
    [{ first: 101 }, 'first'],
    [{ first: -1 }, 'first'],
    [{ last: 101 }, 'last'],
    [{ last: -5 }, 'last'],
    [{ after: 'not-a-cursor' }, 'after'],
    [{ before: 'Zm9v' }, 'before'],
  ])('refuse %j with BAD_USER_INPUT and no upstream call', async (variables, argName) => {
    const result = await h.runCounting(ExportsPage, { org, ...variables });
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: argName });
    expect(result.errors?.[0]?.path).toEqual(['organization', 'batchExports']);
    // Refused before the operation runs: not even the organization above it is fetched.
    expect(result.data).toBeNull();
    expect(result.routes).toEqual([]);
  });

  it("refuse a cursor of another connection before the operation runs, and one of another organization's list before its own call", async () => {
    const domainCursor = (await h.run(DomainCursor, { org })).data.organization?.domains?.pageInfo.endCursor;
    const otherOrgCursor = (await h.run(ExportsPage, { org: otherOrg, first: 1 })).data.organization?.batchExports?.pageInfo.endCursor;
    expect(domainCursor).toBeTruthy();
    expect(otherOrgCursor).toBeTruthy();
    // A domains cursor on batchExports: the field's own name is in the cursor, so no call at all.
    const otherList = await h.runCounting(ExportsPage, { org, after: domainCursor });
    expect(otherList.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'after' });
    expect(otherList.data).toBeNull();
    expect(otherList.routes).toEqual([]);
    // Another organization's batchExports cursor: its parent's id is known only once the parent is
    // fetched, so it is refused when the field resolves, before the list's own call.
    const otherParent = await h.runCounting(ExportsPage, { org, after: otherOrgCursor });
    expect(otherParent.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(listCalls(otherParent.routes)).toEqual([]);
  });
});

describe('connections over a capped upstream', () => {
  it('keep fetching until the page is full', async () => {
    h.api.settings.maxPageSize = 7;
    try {
      const { ids, calls } = await page({ first: 20, after: (await page({ first: 1 })).connection.pageInfo.endCursor ?? undefined });
      expect(ids).toEqual(allIds.slice(1, 21));
      expect(calls).toEqual([`GET ${path()}?limit=20&offset=1`, `GET ${path()}?limit=13&offset=8`, `GET ${path()}?limit=6&offset=15`]);
      const tail = await page({ last: 10 });
      expect(tail.ids).toEqual(allIds.slice(-10));
    } finally {
      h.api.settings.maxPageSize = null;
    }
  });
});
