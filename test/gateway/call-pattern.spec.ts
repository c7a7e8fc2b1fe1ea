// The upstream calls a query causes are the product's behaviour: the dashboard costs exactly the
// minimal number of calls, each carries the caller's key and request id and nothing else from the
// incoming request, siblings go out together, and calls without a key never happen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../generated/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { restGet } from '../support/rest.ts';

const Dashboard = graphql(`
  query Dashboard {
    organizations(first: 2) {
      nodes {
        id
        name
        batchExports(first: 5) { totalCount nodes { id name paused interval } }
        domains { nodes { id domain isVerified } }
        members { nodes { id level user { email } } }
        invites { nodes { id targetEmail isExpired } }
        pipelineDestinations { nodes { id name } }
        projects { id name surveys(first: 5) { totalCount nodes { id name type } } }
      }
    }
  }
`);

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('the dashboard query', () => {
  it('makes exactly one call per list it shows: 1 + 5 per organization + 1 per project', async () => {
    const { data, errors, routes } = await h.runCounting(Dashboard);
    expect(errors).toBeUndefined();
    const orgs = data.organizations.nodes;
    expect(orgs).toHaveLength(2);

    // Projects come from each organization's `teams` (no call); every other list is one GET.
    const orgIds = (
      await restGet<{ results: { id: string; teams: { id: number; project_id?: number }[] }[] }>(
        h.api.url,
        '/api/organizations/?limit=2',
        h.api.keys.demo,
      )
    ).results;
    const projects = orgIds.flatMap((o) => [...new Set(o.teams.map((t) => String(t.project_id ?? t.id)))]);
    const expected = [
      'GET /api/organizations/?limit=2&offset=0',
      ...orgIds.flatMap((o) => [
        `GET /api/organizations/${o.id}/batch_exports/?limit=5&offset=0`,
        `GET /api/organizations/${o.id}/domains/?limit=20&offset=0`,
        `GET /api/organizations/${o.id}/members/?limit=20&offset=0`,
        `GET /api/organizations/${o.id}/invites/?limit=20&offset=0`,
        `GET /api/organizations/${o.id}/pipeline_destinations/?limit=20&offset=0`,
      ]),
      ...projects.map((p) => `GET /api/projects/${p}/surveys/?limit=5&offset=0`),
    ];
    expect(routes.sort()).toEqual(expected.sort());
    expect(routes).toHaveLength(1 + 5 * 2 + projects.length);
    // On the demo data: 2 organizations with 3 projects between them, so 1 + 10 + 3 = 14.
    expect(routes).toHaveLength(14);
    expect(orgs.every((o) => o.projects.length > 0 && (o.batchExports?.nodes.length ?? 0) > 0)).toBe(true);
  });

  it("forwards the caller's key and request id, and no other incoming header", async () => {
    const { calls, headers } = await h.runCounting(Dashboard, undefined, {
      headers: { 'x-request-id': 'req-abc-123', cookie: 'session=stolen', 'x-forwarded-for': '10.0.0.1', 'x-custom': 'nope' },
    });
    expect(headers.get('x-request-id')).toBe('req-abc-123');
    for (const call of calls) {
      expect(call.headers.authorization).toBe(`Bearer ${h.api.keys.demo}`);
      expect(call.headers['x-request-id']).toBe('req-abc-123');
      expect(Object.keys(call.headers).sort()).toEqual(['accept', 'authorization', 'connection', 'host', 'user-agent', 'x-request-id']);
    }
  });

  it('generates a request id when none comes in, and returns it', async () => {
    const { calls, headers } = await h.runCounting(`{ organizations(first: 1) { totalCount } }`);
    const id = headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls[0]?.headers['x-request-id']).toBe(id);
  });

  it('makes identical GETs once (aliases, repeated fields)', async () => {
    const { routes } = await h.runCounting(`{
      a: organizations(first: 3) { nodes { name } }
      b: organizations(first: 3) { totalCount nodes { slug } }
    }`);
    expect(routes).toEqual(['GET /api/organizations/?limit=3&offset=0']);
  });
});

describe('keys', () => {
  it('without a key: UNAUTHENTICATED on every upstream field and no upstream call; introspection works', async () => {
    const root = await h.runCounting(`{ organizations { totalCount } }`, undefined, { key: null });
    expect(root.errors?.map((e) => [e.path?.join('.'), e.extensions?.code])).toEqual([['organizations', 'UNAUTHENTICATED']]);
    expect(root.data).toBeNull();

    const nested = await h.runCounting(
      `{ project(databaseId: "1") { databaseId surveys { totalCount } } __schema { queryType { name } } }`,
      undefined,
      { key: null },
    );
    expect(nested.errors?.map((e) => [e.path?.join('.'), e.extensions?.code])).toEqual([['project.surveys', 'UNAUTHENTICATED']]);
    expect(nested.data).toEqual({ project: { databaseId: '1', surveys: null }, __schema: { queryType: { name: 'Query' } } });
    expect([...root.calls, ...nested.calls]).toHaveLength(0);
  });

  it('a key the upstream rejects is UNAUTHENTICATED with upstreamStatus 401', async () => {
    const { errors } = await h.runCounting(`{ organizations { totalCount } }`, undefined, { key: 'phx_not_a_real_key' });
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHENTICATED', upstreamStatus: 401 });
  });

  it('a missing scope fails only its own field, naming the scope, and keeps the rest', async () => {
    const { data, errors } = await h.runCounting(
      `{ organizations(first: 1) { nodes { name domains { totalCount } batchExports { totalCount } members { totalCount } } } }`,
      undefined,
      { key: h.api.keys.organizationRead },
    );
    const org = (data as any).organizations.nodes[0];
    expect(org.name).toBeTruthy();
    expect(org.domains.totalCount).toBeGreaterThan(0);
    expect(org.batchExports).toBeNull();
    expect(org.members).toBeNull();
    expect(errors?.map((e) => [e.path?.at(-1), e.extensions?.code, e.message]).sort()).toEqual([
      ['batchExports', 'FORBIDDEN', "API key missing required scope 'batch_export:read'"],
      ['members', 'FORBIDDEN', "API key missing required scope 'organization_member:read'"],
    ]);
  });

  it("another user's organization is null (the upstream answers 404)", async () => {
    const outsiderOrgs = await restGet<{ results: { id: string }[] }>(h.api.url, '/api/organizations/', h.api.keys.outsider as string);
    const foreign = outsiderOrgs.results[0]?.id;
    const { data, errors } = await h.runCounting(`query($id: UUID!) { organization(databaseId: $id) { name } }`, { id: foreign });
    expect(errors).toBeUndefined();
    expect(data).toEqual({ organization: null });
  });
});

describe('round trips', () => {
  it('sends every call of one nesting level together: two round trips for the dashboard', async () => {
    // Every answer is held DELAY ms: a call that waited for another's answer would arrive that much later.
    const DELAY = 100;
    const slow = await startHarness({ faults: { delayMs: DELAY } });
    try {
      const { errors, data, calls } = await slow.runCounting(Dashboard);
      expect(errors).toBeUndefined();
      const projects = data.organizations.nodes.flatMap((org) => org.projects);
      const [first, ...rest] = calls;
      expect(first?.route).toBe('GET /api/organizations/?limit=2&offset=0');
      // The first call (organizations) alone, then all 2 x 5 lists and the surveys of every project at once.
      expect(rest).toHaveLength(2 * 5 + projects.length);
      const arrivals = rest.map((call) => call.receivedAt);
      expect(Math.min(...arrivals) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(DELAY - 5);
      expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeLessThan(DELAY);
    } finally {
      await slow.close();
    }
  });
});
