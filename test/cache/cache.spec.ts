// The cache of upstream GET answers in this instance's memory (CACHE=memory), through the gateway:
// hits cost no upstream call, writes make stale what they can change (for every key) and nothing
// else, errors and non-2xx answers (a lookup's 404 too) are never cached, and identical GETs in
// flight share one call that no waiter's disconnect or deadline cancels for the others.
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUpstreamBudget } from '../../src/config/upstream-budget.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { sendJson } from '../support/scripted-answers.ts';
import { sources, type TestGateway, testGateway } from './support.ts';

const MEMORY = { store: 'memory', ttlMs: 60_000 };
const EXPORTS = `query Exports($org: UUID!) { organization(databaseId: $org) { batchExports(first: 5) { nodes { id paused } } } }`;
const DOMAINS = `query Domains($org: UUID!) { organization(databaseId: $org) { domains { totalCount nodes { domain } } } }`;
const DASHBOARD = `{ organizations(first: 2) { nodes { name batchExports(first: 5) { nodes { name paused } } domains { nodes { domain } }
  members { nodes { user { email } } } projects { surveys(first: 5) { nodes { name } } } } } }`;

describe('against the reference API', () => {
  let api: ReferenceApi;
  let target: TestGateway;
  let hedgehog: string;
  let prickly: string;

  beforeAll(async () => {
    api = await startReferenceApi({ liveShapes: true });
    target = testGateway({ upstreamUrl: api.url, cache: MEMORY });
    const orgs = api.store.organizationsOf(1);
    hedgehog = orgs.find((org) => org.name === 'Hedgehog Analytics')?.id as string;
    prickly = orgs.find((org) => org.name === 'Prickly Labs')?.id as string;
  });
  afterAll(async () => {
    await target?.gateway.close();
    await api?.close();
  });

  /** Runs an operation and returns its response with the upstream requests it alone caused. */
  async function counting(query: string, key: string | undefined, variables?: unknown) {
    const start = api.requests.length;
    const response = await target.post(query, key, { variables });
    return { ...response, upstream: api.requests.slice(start).filter((request) => request.headers.authorization) };
  }

  it('answers a repeated query from the cache: no upstream call, the same data, hits shown as such', async () => {
    const first = await counting(DASHBOARD, api.keys.demo);
    expect(first.body.errors).toBeUndefined();
    expect(first.upstream.length).toBe(10); // 1 + 3 lists per organization + 1 per project
    const second = await counting(DASHBOARD, api.keys.demo);
    expect(second.upstream).toEqual([]);
    expect(second.body.data).toEqual(first.body.data);
    expect(sources(second.body)).toEqual(Array(10).fill('cache'));
    expect(target.log.requestLines().at(-1)).toMatchObject({ upstreamCalls: 0, cacheHits: 10, coalescedCalls: 0 });
    const { body: metrics } = await target.gateway.metrics.render();
    expect(metrics).toMatch(/^gateway_cache_hits_total\{route="\/api\/organizations\/:organization_id\/batch_exports\/"\} [1-9]/m);
    // Hits are not upstream calls.
    expect(metrics).toMatch(/^gateway_upstream_requests_total\{method="GET",route="\/api\/organizations\/",status="200"\} 1$/m);
  });

  it('a write makes stale what it can change, for every key, and nothing else', async () => {
    for (const key of [api.keys.demo, api.keys.member]) await counting(EXPORTS, key, { org: hedgehog });
    await counting(EXPORTS, api.keys.demo, { org: prickly });
    const before = await counting(EXPORTS, api.keys.member, { org: hedgehog });
    expect(before.upstream).toEqual([]);

    const exportId = before.body.data.organization.batchExports.nodes[0].id;
    await target.post(`mutation($id: ID!) { pauseBatchExport(input: { id: $id }) { __typename } }`, api.keys.demo, {
      variables: { id: exportId },
    });

    const demo = await counting(EXPORTS, api.keys.demo, { org: hedgehog });
    const member = await counting(EXPORTS, api.keys.member, { org: hedgehog });
    const other = await counting(EXPORTS, api.keys.demo, { org: prickly });
    expect([demo, member].map((response) => response.upstream.length)).toEqual([2, 2]);
    expect(member.body.data.organization.batchExports.nodes[0]).toEqual({ id: exportId, paused: true });
    expect(other.upstream).toEqual([]);
  });

  it('a write the upstream refused (4xx) makes nothing stale, whoever sent it; nor does one refused before sending', async () => {
    await counting(DOMAINS, api.keys.demo, { org: hedgehog });
    const organizationId = Buffer.from(`Organization:${hedgehog}`).toString('base64');
    const invalid = await target.post(
      `mutation($org: ID!) { createDomain(input: { organizationId: $org, domain: "NOT A DOMAIN" }) { __typename } }`,
      api.keys.demo,
      {
        variables: { org: organizationId },
      },
    );
    expect(invalid.body.data.createDomain.__typename).toBe('ValidationError');
    expect((await counting(DOMAINS, api.keys.demo, { org: hedgehog })).upstream).toEqual([]);

    // A made-up key deleting a made-up organization (a route that would make every answer stale): the upstream answers 401.
    const stranger = await counting(`mutation($id: ID!) { deleteOrganization(input: { id: $id }) { __typename } }`, 'phx_not_a_real_key', {
      id: Buffer.from(`Organization:${randomUUID()}`).toString('base64'),
    });
    expect(stranger.upstream.map((request) => request.method)).toEqual(['DELETE']);
    expect(stranger.body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
    expect((await counting(DOMAINS, api.keys.demo, { org: hedgehog })).upstream).toEqual([]);
    const { body: metrics } = await target.gateway.metrics.render();
    expect(metrics).not.toMatch(/^gateway_cache_invalidations_total\{route="\/api\/organizations\/:organization_id\/(domains\/)?"\}/m);

    const malformed = await counting(
      `mutation { createDomain(input: { organizationId: "not-a-global-id", domain: "x.example" }) { __typename } }`,
      api.keys.demo,
    );
    expect(malformed.body.errors?.[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(malformed.upstream).toEqual([]);
    expect((await counting(DOMAINS, api.keys.demo, { org: hedgehog })).upstream).toEqual([]);
  });

  it("a mutation's own re-read is never served from the cache", async () => {
    const exportRecord = api.store.batchExportsOf(hedgehog).find((record) => !record.paused);
    const id = Buffer.from(`BatchExport:${hedgehog}:${exportRecord?.id}`).toString('base64');
    const lookup = `query($id: ID!) { node(id: $id) { ... on BatchExport { paused } } }`;
    await counting(lookup, api.keys.demo, { id });
    expect((await counting(lookup, api.keys.demo, { id })).upstream).toEqual([]);
    // liveShapes: pause answers {"paused": true}, so the payload's record is read again.
    const paused = await counting(
      `mutation($id: ID!) { pauseBatchExport(input: { id: $id }) { ... on PauseBatchExportPayload { batchExport { paused } } } }`,
      api.keys.demo,
      { id },
    );
    expect(paused.upstream.map((request) => `${request.method} ${request.path}`)).toEqual([
      `POST /api/organizations/${hedgehog}/batch_exports/${exportRecord?.id}/pause/`,
      `GET /api/organizations/${hedgehog}/batch_exports/${exportRecord?.id}/`,
    ]);
    expect(paused.body.data.pauseBatchExport.batchExport.paused).toBe(true);
    expect((await counting(lookup, api.keys.demo, { id })).body.data.node.paused).toBe(true);
  });

  it('deleting an organization makes every answer stale (its projects are not named by the route)', async () => {
    const surveys = `{ project(databaseId: "1") { surveys { totalCount } } }`;
    await counting(surveys, api.keys.demo);
    expect((await counting(surveys, api.keys.demo)).upstream).toEqual([]);
    const created = await target.post(
      `mutation { createOrganization(input: { name: "Short-lived" }) { ... on CreateOrganizationPayload { organization { id } } } }`,
      api.keys.demo,
    );
    const id = created.body.data.createOrganization.organization.id;
    await target.post(`mutation($id: ID!) { deleteOrganization(input: { id: $id }) { __typename } }`, api.keys.demo, { variables: { id } });
    expect((await counting(surveys, api.keys.demo)).upstream).toHaveLength(1);
  });

  it('never caches what names @current (the same record as another id)', async () => {
    const current = `{ project(databaseId: "@current") { surveys { totalCount } } }`;
    expect((await counting(current, api.keys.demo)).upstream).toHaveLength(1);
    expect((await counting(current, api.keys.demo)).upstream).toHaveLength(1);
  });
});

describe('against a recording upstream', () => {
  let scripted: ReferenceApi;
  let target: TestGateway;
  const ORGS = '{ organizations(first: 1) { nodes { name } } }';
  const page = (name: string) => ({
    count: 1,
    next: null,
    previous: null,
    results: [{ id: '0a6f2b1e-8c2d-4c1f-9d1e-5b7a3c2d1e0f', name }],
  });

  beforeAll(async () => {
    scripted = await startReferenceApi();
    target = testGateway({ upstreamUrl: scripted.url, cache: MEMORY, requestDeadlineMs: 300 });
  });
  afterAll(async () => {
    await target?.gateway.close();
    await scripted?.close();
  });

  const callsTo = (path: string) => scripted.requests.filter((request) => request.path === path).length;

  it.each([
    ['a 500', (res: ServerResponse) => sendJson(res, 500, { detail: 'boom' })],
    ['a 429', (res: ServerResponse) => sendJson(res, 429, { detail: 'slow down' }, { 'retry-after': '1' })],
    ['a 403', (res: ServerResponse) => sendJson(res, 403, { detail: 'no' })],
    ['an answer of the wrong shape', (res: ServerResponse) => sendJson(res, 200, { count: 1, results: 'x' })],
  ])('does not cache %s: the next request asks again', async (_name, fail) => {
    const key = `phx_errors_${_name.replace(/\W/g, '_')}`;
    const before = scripted.requests.length;
    scripted.answerWith((_req, res) => fail(res));
    expect((await target.post(ORGS, key)).body.errors?.[0].extensions.code).toBeTruthy();
    scripted.answerWith((_req, res) => sendJson(res, 200, page('Recovered')));
    expect((await target.post(ORGS, key)).body.data.organizations.nodes).toEqual([{ name: 'Recovered' }]);
    expect(sources((await target.post(ORGS, key)).body)).toEqual(['cache']);
    expect(scripted.requests.length - before).toBe(2);
  });

  it('does not cache a lookup answered 404 (null in GraphQL): the same request twice makes the call twice', async () => {
    const key = 'phx_lookup_404';
    const id = randomUUID();
    const path = `/api/organizations/${id}/`;
    const ORG = `query Org($id: UUID!) { organization(databaseId: $id) { name } }`;
    scripted.answerWith((req, res) =>
      req.path === path
        ? sendJson(res, 404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null })
        : sendJson(res, 500, {}),
    );
    const before = callsTo(path);
    for (let i = 0; i < 2; i++) {
      const missing = await target.post(ORG, key, { variables: { id } });
      expect(missing.body).toMatchObject({ data: { organization: null } });
      expect(missing.body.errors).toBeUndefined();
      expect(sources(missing.body)).toEqual(['upstream']);
    }
    expect(callsTo(path) - before).toBe(2);
    // Not vacuous: once the record is there, its answer is cached.
    scripted.answerWith((_req, res) => sendJson(res, 200, { id, name: 'Found' }));
    expect((await target.post(ORG, key, { variables: { id } })).body.data.organization).toEqual({ name: 'Found' });
    expect(sources((await target.post(ORG, key, { variables: { id } })).body)).toEqual(['cache']);
    expect(callsTo(path) - before).toBe(3);
  });

  it.each([
    [500, 'upstream'],
    [404, 'cache'],
    [301, 'cache'], // a redirect, which the gateway does not follow: the write was not made
  ])('a write answered %i makes stale what it can change only when it may have changed something: then %s', async (status, source) => {
    const key = `phx_write_${status}`;
    const { id } = page('x').results[0] as { id: string };
    scripted.answerWith((req, res) =>
      req.method === 'GET' ? sendJson(res, 200, page('Cached')) : sendJson(res, status, { detail: 'no' }),
    );
    await target.post(ORGS, key);
    expect(sources((await target.post(ORGS, key)).body)).toEqual(['cache']);
    const before = scripted.requests.length;
    const write = await target.post(`mutation($id: ID!) { updateOrganization(input: { id: $id, name: "y" }) { __typename } }`, key, {
      variables: { id: Buffer.from(`Organization:${id}`).toString('base64') },
    });
    expect(scripted.requests.slice(before).map((request) => request.method)).toEqual(['PATCH']);
    expect(write.body.errors ?? write.body.data.updateOrganization.__typename).toBeTruthy();
    expect(sources((await target.post(ORGS, key)).body)).toEqual([source]);
  });

  it('shares one upstream call among identical GETs of one key in flight at once; other keys make their own', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    scripted.answerWith(async (_req, res) => {
      await released;
      sendJson(res, 200, page('Shared'));
    });
    const before = callsTo('/api/organizations/');
    const waiting = [...Array(5)].map(() => target.post(ORGS, 'phx_coalesced'));
    const other = target.post(ORGS, 'phx_coalesced_other');
    await new Promise((resolve) => setTimeout(resolve, 50));
    release();
    const answers = await Promise.all(waiting);
    expect(answers.map((answer) => answer.body.data.organizations.nodes)).toEqual(Array(5).fill([{ name: 'Shared' }]));
    expect(answers.flatMap((answer) => sources(answer.body)).sort()).toEqual([
      'coalesced',
      'coalesced',
      'coalesced',
      'coalesced',
      'upstream',
    ]);
    expect((await other).body.data.organizations.nodes).toEqual([{ name: 'Shared' }]);
    expect(callsTo('/api/organizations/') - before).toBe(2);
    expect(
      target.log
        .requestLines()
        .slice(-6)
        .map((line) => line.coalescedCalls)
        .sort(),
    ).toEqual([0, 0, 1, 1, 1, 1]);
  });

  it('starts no call for a request past its deadline: its queued GETs are not sent', async () => {
    const orgs = Array.from({ length: 10 }, () => ({ id: randomUUID(), name: 'org' }));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    scripted.answerWith(async (req, res) => {
      if (req.path === '/api/organizations/') return sendJson(res, 200, { count: 10, next: null, previous: null, results: orgs });
      await released;
      sendJson(res, 200, { count: 0, next: null, previous: null, results: [] });
    });
    const limited = testGateway({
      upstreamUrl: scripted.url,
      cache: MEMORY,
      requestDeadlineMs: 200,
      upstreamConcurrencyPerRequest: 2,
      upstreamBudget: parseUpstreamBudget('1000/hour'),
    });
    const domainCalls = () => scripted.requests.filter((request) => request.path.endsWith('/domains/')).length;
    const before = domainCalls();
    try {
      const response = await limited.post('{ organizations(first: 10) { nodes { domains(first: 1) { totalCount } } } }', 'phx_abandoned');
      expect(response.body.errors?.[0].extensions.code).toBe('UPSTREAM_TIMEOUT');
      // Counted in the budget: the list, and each domains call this request started (all sent, held upstream).
      const started = 1000 - response.body.extensions.upstreamBudget[0].remaining - 1;
      expect(started).toBeLessThanOrEqual(2); // at most UPSTREAM_CONCURRENCY_PER_REQUEST; the 8 queued behind them never start
      while (domainCalls() - before < started) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(domainCalls() - before).toBe(started);
    } finally {
      release();
      await limited.gateway.close();
    }
  });

  it("is not cancelled by its leader's disconnect, nor by a waiter's deadline; the others get the answer", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let finished = false;
    scripted.answerWith(async (_req, res) => {
      await released;
      res.on('finish', () => (finished = true));
      sendJson(res, 200, page('Survivor'));
    });
    const before = callsTo('/api/organizations/');
    const leaving = new AbortController();
    const leader = Promise.resolve(
      target.gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer phx_survivor' },
        body: JSON.stringify({ query: ORGS }),
        signal: leaving.signal,
      }),
    ).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 30));
    // The leader's client goes away while its call is held.
    leaving.abort();
    await leader;
    // This one joins, then its 300 ms deadline passes while the call is still held.
    const timedOut = await target.post(ORGS, 'phx_survivor');
    expect(timedOut.body.errors?.[0].extensions.code).toBe('UPSTREAM_TIMEOUT');
    expect(sources(timedOut.body)).toEqual(['coalesced']);
    // The call is still in flight: a later identical GET joins it and gets its answer.
    const joined = target.post(ORGS, 'phx_survivor');
    await new Promise((resolve) => setTimeout(resolve, 30));
    release();
    const answer = await joined;
    expect(answer.body.data.organizations.nodes).toEqual([{ name: 'Survivor' }]);
    expect(sources(answer.body)).toEqual(['coalesced']);
    expect(callsTo('/api/organizations/') - before).toBe(1);
    expect(finished).toBe(true);
  });
});
