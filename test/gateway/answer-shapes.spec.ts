// An upstream answer of the wrong shape is an upstream error of the field that asked for it: lists,
// lookups, nested connections and mutation answers, answered by the reference API as a test scripts it. Every such
// error is UPSTREAM_ERROR with a fixed message that quotes nothing the upstream sent, and the
// fields beside it still resolve. Last, a property over any value put anywhere in an answer.
import type { ServerResponse } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UNREPRESENTABLE_VALUE } from '../../src/errors/graphql-errors.ts';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { globalId } from '../../src/schema/global-id.ts';
import { postGraphQL } from '../ops/support.ts';
import { DeepJson, jsonText, sendJson, sendText, WRONG_BODIES, type WrongAnswer } from '../support/scripted-answers.ts';
import { subscribe } from '../support/sse.ts';

const KEY = 'phx_answer_shapes_key';
const ORG = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0001';
const EXPORT = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0002';
const RUN = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0003';
const DOMAIN = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0004';
const MEMBER = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0005';
const USER = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0006';
const INVITE = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0007';
const SURVEY = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0008';
const OTHER_ORG = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0009';
const MALFORMED = 'The upstream service sent a malformed response.';

const page = (...results: unknown[]) => ({ count: results.length, next: null, previous: null, results });
const user = { id: 1, uuid: USER, email: 'ann@acme.example', first_name: 'Ann' };
const organization = {
  id: ORG,
  name: 'Acme',
  slug: 'acme',
  created_at: '2026-01-05T10:00:00Z',
  membership_level: 15,
  is_member_join_email_enabled: true,
  member_count: 2,
  teams: [{ id: 1, project_id: 1, name: 'Web' }],
  available_product_features: [],
  metadata: { plan: 'free' },
};
const exportRun = { id: RUN, status: 'Completed', batch_export: EXPORT, records_completed: 10 };
const batchExport = { id: EXPORT, name: 'S3 export', paused: false, destination: { type: 'S3', config: {} }, latest_runs: [exportRun] };
const domain = { id: DOMAIN, domain: 'acme.example', is_verified: true };
const member = { id: MEMBER, level: 8, user };
const invite = { id: INVITE, target_email: 'bob@acme.example', created_by: user };
const item = { id: 7, name: 'Webhook', organization_id: ORG };
const survey = { id: SURVEY, name: 'NPS', type: 'popover', created_by: user, linked_flag: null, iteration_start_dates: null };

const o = `/api/organizations/${ORG}`;
/** What the upstream answers, by `METHOD path`, unless a test replaces it. */
const VALID: Record<string, unknown> = {
  'GET /api/organizations/': page(organization),
  [`GET ${o}/`]: organization,
  [`GET ${o}/batch_exports/`]: page(batchExport),
  [`GET ${o}/batch_exports/${EXPORT}/`]: batchExport,
  [`GET ${o}/domains/`]: page(domain),
  [`GET ${o}/domains/${DOMAIN}/`]: domain,
  [`GET ${o}/members/`]: page(member),
  [`GET ${o}/invites/`]: page(invite),
  [`GET ${o}/pipeline_destinations/`]: page(item),
  [`GET ${o}/pipeline_destinations/7/`]: item,
  [`GET ${o}/pipeline_destinations/7/check_for_updates/`]: item,
  [`GET ${o}/pipeline_destinations/7/source/`]: { 'index.ts': 'export {}' },
  'GET /api/projects/1/surveys/': page(survey),
  [`GET /api/projects/1/surveys/${SURVEY}/`]: survey,
  [`POST ${o}/batch_exports/`]: batchExport,
  [`POST ${o}/batch_exports/${EXPORT}/pause/`]: batchExport,
  [`POST ${o}/invites/bulk/`]: [invite],
  [`GET /api/organizations/${OTHER_ORG}/batch_exports/${EXPORT}/`]: batchExport,
};

/** An answer for one route: a value sent as JSON, or a function that writes the response itself. */
type Answer = unknown | ((res: ServerResponse) => void);

let upstream: ReferenceApi;
let gateway: Gateway;

beforeAll(async () => {
  upstream = await startReferenceApi();
  // The breaker would pause calls after a run of malformed answers: these tests are about each answer alone.
  gateway = createGateway({ upstreamUrl: upstream.url, upstreamGetRetries: 0, circuitBreaker: { volumeThreshold: 1_000_000 } });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
  answerWith({});
});

function answerWith(replaced: Record<string, Answer>) {
  const answers = { ...VALID, ...replaced };
  upstream.answerWith((req, res) => {
    const key = `${req.method} ${req.path}`;
    if (!(key in answers)) return sendJson(res, 404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    const answer = answers[key];
    if (typeof answer === 'function') return (answer as (res: ServerResponse) => void)(res);
    return sendJson(res, req.method === 'POST' && !req.path.endsWith('/pause/') ? 201 : 200, answer);
  });
}

const run = (query: string) =>
  postGraphQL(gateway.yoga.fetch as (url: string, init: RequestInit) => Promise<Response>, query, { key: KEY });

/** Exactly one error, an UPSTREAM_ERROR at `path` with a fixed message, and nothing the upstream sent quoted anywhere. */
function expectOneUpstreamError(body: { errors?: any[] }, path: (string | number)[], message = MALFORMED) {
  expect(body.errors).toHaveLength(1);
  expect(body.errors?.[0]).toMatchObject({ message, path, extensions: { code: 'UPSTREAM_ERROR' } });
  expectNoEcho(body);
}

function expectNoEcho(body: { errors?: any[] }) {
  const messages = JSON.stringify(body.errors ?? []);
  for (const marker of ['LEAK', '../../x', 'abc', 'not a']) expect(messages).not.toContain(marker);
}

const withRecord = (record: object, change: Record<string, unknown>) => ({ ...record, ...change });
/** The wrong bodies, plus pages whose envelope or record is broken in the given ways. */
const wrongPages = (record: object, brokenRecords: [string, Record<string, unknown>][]): WrongAnswer[] => [
  ...WRONG_BODIES,
  ['results is an object', (res) => sendJson(res, 200, { count: 1, results: { 0: record } })],
  ['results is null', (res) => sendJson(res, 200, { count: 1, results: null })],
  ['results is a string', (res) => sendJson(res, 200, { count: 1, results: '../../x' })],
  ['count is missing', (res) => sendJson(res, 200, { results: [record] })],
  ['count is negative', (res) => sendJson(res, 200, { ...page(record), count: -5 })],
  ['count is a fraction', (res) => sendJson(res, 200, { ...page(record), count: 1.5 })],
  ['count is a string', (res) => sendJson(res, 200, { ...page(record), count: '1' })],
  ['count is past the largest Int', (res) => sendJson(res, 200, { ...page(record), count: 2 ** 31 })],
  ['a record is null', (res) => sendJson(res, 200, page(null))],
  ['a record is a number', (res) => sendJson(res, 200, page(42))],
  ['a record is a string', (res) => sendJson(res, 200, page('LEAK'))],
  ['a record has id null', (res) => sendJson(res, 200, page(withRecord(record, { id: null })))],
  ['a record has no id', (res) => sendJson(res, 200, page(withRecord(record, { id: undefined })))],
  ['a record has id "../../x"', (res) => sendJson(res, 200, page(withRecord(record, { id: '../../x' })))],
  ...brokenRecords.map(([name, change]): WrongAnswer => [name, (res) => sendJson(res, 200, page(withRecord(record, change)))]),
];

describe('a list page of the wrong shape fails only its connection', () => {
  it.each(
    wrongPages(batchExport, [
      ['latest_runs is a string', { latest_runs: 'abc' }],
      ['a run is null', { latest_runs: [null] }],
      ['a run has a malformed id', { latest_runs: [{ ...exportRun, id: 'LEAK' }] }],
      ['destination is a string', { destination: 'abc' }],
      ['destination is a list', { destination: [] }],
      ['id is a number', { id: 5 }],
    ]),
  )('batch exports: %s', async (_name, send) => {
    answerWith({ [`GET ${o}/batch_exports/`]: send });
    const { body } = await run(`{ organization(databaseId: "${ORG}") { name
      batchExports { totalCount nodes { databaseId name latestRuns { databaseId } destination { type } } }
      domains { nodes { domain } } } }`);
    expectOneUpstreamError(body, ['organization', 'batchExports']);
    expect(body.data).toEqual({ organization: { name: 'Acme', batchExports: null, domains: { nodes: [{ domain: 'acme.example' }] } } });
    expect(upstream.requests.filter((r) => r.path.endsWith('/batch_exports/'))).toHaveLength(1);
  });

  it.each(
    wrongPages(member, [
      ['user is null', { user: null }],
      ['user is a string', { user: 'LEAK' }],
      ['user has no uuid', { user: { ...user, uuid: null } }],
      ['user uuid is not a UUID', { user: { ...user, uuid: '../../x' } }],
    ]),
  )('members: %s', async (_name, send) => {
    answerWith({ [`GET ${o}/members/`]: send });
    const { body } = await run(`{ organization(databaseId: "${ORG}") { members { nodes { id user { email } } } domains { totalCount } } }`);
    expectOneUpstreamError(body, ['organization', 'members']);
    expect(body.data).toEqual({ organization: { members: null, domains: { totalCount: 1 } } });
  });

  it.each(
    wrongPages(item, [
      ['id is a string', { id: '7' }],
      ['id is negative', { id: -1 }],
      ['id is a fraction', { id: 7.5 }],
      ['id is past the largest Int', { id: 2 ** 31 }],
    ]),
  )('pipeline destinations: %s', async (_name, send) => {
    answerWith({ [`GET ${o}/pipeline_destinations/`]: send });
    const { body } = await run(
      `{ organization(databaseId: "${ORG}") { pipelineDestinations { nodes { databaseId name } } domains { totalCount } } }`,
    );
    expectOneUpstreamError(body, ['organization', 'pipelineDestinations']);
    expect(body.data).toEqual({ organization: { pipelineDestinations: null, domains: { totalCount: 1 } } });
  });

  it.each(
    wrongPages(survey, [
      ['iteration_start_dates is a string', { iteration_start_dates: 'abc' }],
      ['created_by is a string', { created_by: 'LEAK' }],
      ['linked_flag is a number', { linked_flag: 5 }],
      ['targeting_flag is a list', { targeting_flag: [] }],
    ]),
  )('surveys of a project: %s', async (_name, send) => {
    answerWith({ 'GET /api/projects/1/surveys/': send });
    const { body } = await run(
      `{ project(databaseId: "1") { databaseId surveys { nodes { databaseId createdBy { email } iterationStartDates } } } }`,
    );
    expectOneUpstreamError(body, ['project', 'surveys']);
    expect(body.data).toEqual({ project: { databaseId: '1', surveys: null } });
  });

  it.each(wrongPages(invite, [['created_by is a list', { created_by: [] }]]))('invites: %s', async (_name, send) => {
    answerWith({ [`GET ${o}/invites/`]: send });
    const { body } = await run(`{ organization(databaseId: "${ORG}") { invites { totalCount } name } }`);
    expectOneUpstreamError(body, ['organization', 'invites']);
    expect(body.data).toEqual({ organization: { invites: null, name: 'Acme' } });
  });

  it('the root list is non-null: a wrong page leaves no data, with the same error', async () => {
    answerWith({ 'GET /api/organizations/': { count: 1, results: { LEAK: organization } } });
    const { body } = await run('{ organizations { totalCount nodes { name } } }');
    expectOneUpstreamError(body, ['organizations']);
    expect(body.data).toBeNull();
  });

  it('a valid page passes unchanged: extra fields, null nested lists and objects are fine', async () => {
    answerWith({
      [`GET ${o}/batch_exports/`]: { ...page({ ...batchExport, latest_runs: null, destination: null, extra: { any: 'thing' } }), extra: 1 },
    });
    const { body } = await run(
      `{ organization(databaseId: "${ORG}") { batchExports { totalCount nodes { name latestRuns { databaseId } destination { type } } } } }`,
    );
    expect(body).toEqual({
      data: { organization: { batchExports: { totalCount: 1, nodes: [{ name: 'S3 export', latestRuns: [], destination: null }] } } },
    });
  });
});

/** Organization records of the wrong shape: what a lookup or a list page may not carry. */
const WRONG_ORGANIZATIONS: WrongAnswer[] = [
  ...WRONG_BODIES,
  ...(
    [
      ['id null', { id: null }],
      ['id "../../x"', { id: '../../x' }],
      ['teams is a string', { teams: 'abc' }],
      ['a team is null', { teams: [null] }],
      ['a team has no id', { teams: [{ name: 'Web' }] }],
      ['a team id is a path', { teams: [{ id: '../../x' }] }],
      ['a team project_id is an object', { teams: [{ id: 1, project_id: { LEAK: 1 } }] }],
      ['available_product_features is an object', { available_product_features: { LEAK: 1 } }],
    ] as [string, Record<string, unknown>][]
  ).map(([name, change]): WrongAnswer => [name, (res) => sendJson(res, 200, withRecord(organization, change))]),
];

describe('a lookup answered with the wrong shape fails only itself', () => {
  it.each(WRONG_ORGANIZATIONS)('organization(databaseId:): %s', async (_name, send) => {
    answerWith({ [`GET ${o}/`]: send });
    const { body } = await run(
      `{ organization(databaseId: "${ORG}") { name projects { databaseId } } project(databaseId: "1") { databaseId } }`,
    );
    expectOneUpstreamError(body, ['organization']);
    expect(body.data).toEqual({ organization: null, project: { databaseId: '1' } });
  });

  it.each(WRONG_BODIES)('Organization.batchExport(databaseId:): %s', async (_name, send) => {
    answerWith({ [`GET ${o}/batch_exports/${EXPORT}/`]: send });
    const { body } = await run(`{ organization(databaseId: "${ORG}") { batchExport(databaseId: "${EXPORT}") { name } name } }`);
    expectOneUpstreamError(body, ['organization', 'batchExport']);
    expect(body.data).toEqual({ organization: { batchExport: null, name: 'Acme' } });
  });

  it.each(WRONG_BODIES)('node(id:) of a domain: %s', async (_name, send) => {
    answerWith({ [`GET ${o}/domains/${DOMAIN}/`]: send });
    const { body } = await run(`{ node(id: "${globalId('Domain', ORG, DOMAIN)}") { id } organization(databaseId: "${ORG}") { name } }`);
    expectOneUpstreamError(body, ['node']);
    expect(body.data).toEqual({ node: null, organization: { name: 'Acme' } });
  });

  it.each([...WRONG_BODIES, ['the id as a string', (res) => sendJson(res, 200, { ...item, id: '7' })] as WrongAnswer])(
    'Organization.pipelineDestination(databaseId:): %s',
    async (_name, send) => {
      answerWith({ [`GET ${o}/pipeline_destinations/7/`]: send });
      const { body } = await run(`{ organization(databaseId: "${ORG}") { pipelineDestination(databaseId: 7) { databaseId } name } }`);
      expectOneUpstreamError(body, ['organization', 'pipelineDestination']);
      expect(body.data).toEqual({ organization: { pipelineDestination: null, name: 'Acme' } });
    },
  );

  it.each([
    ['the live shape without a record', { plugin: 42 }],
    ['the live shape with a broken record', { plugin: { ...item, id: 'LEAK' } }],
    ['a record with a broken id', { ...item, id: null }],
  ])('PipelineDestination.checkForUpdates: %s', async (_name, answer) => {
    answerWith({ [`GET ${o}/pipeline_destinations/7/check_for_updates/`]: answer });
    const { body } = await run(
      `{ organization(databaseId: "${ORG}") { pipelineDestination(databaseId: 7) { name checkForUpdates { name } } } }`,
    );
    expectOneUpstreamError(body, ['organization', 'pipelineDestination', 'checkForUpdates']);
    expect(body.data).toEqual({ organization: { pipelineDestination: { name: 'Webhook', checkForUpdates: null } } });
  });

  it.each([
    ['a 204', (res: ServerResponse) => res.writeHead(204).end()],
    ['an empty 200', (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end()],
  ])('a free-form GET (source) answered with %s', async (_name, send) => {
    answerWith({ [`GET ${o}/pipeline_destinations/7/source/`]: send });
    const { body } = await run(`{ organization(databaseId: "${ORG}") { pipelineDestination(databaseId: 7) { name source } } }`);
    expectOneUpstreamError(body, ['organization', 'pipelineDestination', 'source']);
    expect(body.data).toEqual({ organization: { pipelineDestination: { name: 'Webhook', source: null } } });
  });
});

describe('a leaf value of the wrong type fails only its field, with a fixed message', () => {
  it.each([
    ['a malformed date', { created_at: 'LEAK not a date' }, 'createdAt'],
    ['a string for an Int', { membership_level: '../../x' }, 'membershipLevel'],
    ['an Int past 32 bits', { member_count: 2 ** 31 }, 'memberCount'],
    ['an object for a String', { name: { LEAK: 1 } }, 'name'],
    ['a string for a Boolean', { is_member_join_email_enabled: 'LEAK' }, 'isMemberJoinEmailEnabled'],
  ])('%s', async (_name, change, field) => {
    answerWith({ 'GET /api/organizations/': page({ ...organization, ...change }) });
    const fields = ['name', 'createdAt', 'membershipLevel', 'memberCount', 'isMemberJoinEmailEnabled', 'slug'];
    const { body } = await run(`{ organizations { nodes { ${fields.join(' ')} } } }`);
    expectOneUpstreamError(body, ['organizations', 'nodes', 0, field], UNREPRESENTABLE_VALUE);
    const expected = {
      name: 'Acme',
      createdAt: '2026-01-05T10:00:00Z',
      membershipLevel: 15,
      memberCount: 2,
      isMemberJoinEmailEnabled: true,
      slug: 'acme',
    };
    expect(body.data.organizations.nodes).toEqual([{ ...expected, [field]: null }]);
  });

  it('in embedded records too: a malformed UUID and Int of a run and a user (an e-mail is served as sent)', async () => {
    answerWith({
      [`GET ${o}/batch_exports/`]: page({
        ...batchExport,
        latest_runs: [{ ...exportRun, batch_export: '../../x', records_completed: 'LEAK' }],
      }),
      [`GET ${o}/members/`]: page({ ...member, user: { ...user, email: 'LEAK', id: '../../x' } }),
    });
    const { body } = await run(`{ organization(databaseId: "${ORG}") {
      batchExports { nodes { latestRuns { databaseId status batchExport recordsCompleted } } }
      members { nodes { level user { uuid email databaseId firstName } } } } }`);
    expect(body.data.organization).toEqual({
      batchExports: { nodes: [{ latestRuns: [{ databaseId: RUN, status: 'Completed', batchExport: null, recordsCompleted: null }] }] },
      members: { nodes: [{ level: 8, user: { uuid: USER, email: 'LEAK', databaseId: null, firstName: 'Ann' } }] },
    });
    expect(body.errors?.map((error) => [error.path.at(-1), error.message, error.extensions.code]).sort()).toEqual([
      ['batchExport', UNREPRESENTABLE_VALUE, 'UPSTREAM_ERROR'],
      ['databaseId', UNREPRESENTABLE_VALUE, 'UPSTREAM_ERROR'],
      ['recordsCompleted', UNREPRESENTABLE_VALUE, 'UPSTREAM_ERROR'],
    ]);
  });

  it("in a subscription's events too, under an alias", async () => {
    answerWith({
      [`GET ${o}/batch_exports/${EXPORT}/`]: {
        ...batchExport,
        latest_runs: [{ ...exportRun, batch_export: '../../x', records_completed: 'LEAK' }],
      },
    });
    const subscription = await subscribe(
      'http://gateway.test/graphql',
      'subscription ($id: ID!) { w: batchExport(id: $id) { name latestRuns { batchExport recordsCompleted } } }',
      { id: globalId('BatchExport', ORG, EXPORT) },
      KEY,
      gateway.yoga.fetch as typeof fetch,
    );
    const [event] = await subscription.waitForEvents(1);
    await subscription.close();
    expect(event?.data).toEqual({ w: { name: 'S3 export', latestRuns: [{ batchExport: null, recordsCompleted: null }] } });
    expect(event?.errors?.map((error) => [error.path, error.message, error.extensions?.code])).toEqual([
      [['w', 'latestRuns', 0, 'batchExport'], UNREPRESENTABLE_VALUE, 'UPSTREAM_ERROR'],
      [['w', 'latestRuns', 0, 'recordsCompleted'], UNREPRESENTABLE_VALUE, 'UPSTREAM_ERROR'],
    ]);
    expectNoEcho({ errors: [...(event?.errors ?? [])] });
  });
});

describe("a mutation's answer of the wrong shape is UPSTREAM_ERROR, and the write was sent once", () => {
  const exportId = globalId('BatchExport', ORG, EXPORT);
  const orgId = globalId('Organization', ORG);

  const brokenRecords: WrongAnswer[] = [
    ...WRONG_BODIES,
    ['an object without the record', (res) => sendJson(res, 201, {})],
    ['a record with id null', (res) => sendJson(res, 201, { ...batchExport, id: null })],
    ['a record whose latest_runs is a string', (res) => sendJson(res, 201, { ...batchExport, latest_runs: 'abc' })],
  ];

  it.each(brokenRecords)('createBatchExport answered with %s', async (_name, send) => {
    answerWith({ [`POST ${o}/batch_exports/`]: send });
    const { body } = await run(`mutation { createBatchExport(input: { organizationId: "${orgId}", name: "x" }) {
      ... on CreateBatchExportPayload { batchExport { name } } } }`);
    expectOneUpstreamError(body, ['createBatchExport']);
    expect(body.data).toBeNull();
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST ${o}/batch_exports/`]);
  });

  it.each([
    ...WRONG_BODIES,
    ['the live shape with a string', (res: ServerResponse) => sendJson(res, 200, { paused: 'LEAK' })],
    ['an object of neither shape', (res: ServerResponse) => sendJson(res, 200, { status: 'ok' })],
    ['a record with a broken destination', (res: ServerResponse) => sendJson(res, 200, { ...batchExport, destination: 'abc' })],
  ] as WrongAnswer[])('pauseBatchExport answered with %s: no re-read either', async (_name, send) => {
    answerWith({ [`POST ${o}/batch_exports/${EXPORT}/pause/`]: send });
    const { body } = await run(
      `mutation { pauseBatchExport(input: { id: "${exportId}" }) { ... on PauseBatchExportPayload { batchExport { paused } } } }`,
    );
    expectOneUpstreamError(body, ['pauseBatchExport']);
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST ${o}/batch_exports/${EXPORT}/pause/`]);
  });

  it("pauseBatchExport answered with the live service's { paused } re-reads the export", async () => {
    answerWith({ [`POST ${o}/batch_exports/${EXPORT}/pause/`]: { paused: true } });
    const { body } = await run(
      `mutation { pauseBatchExport(input: { id: "${exportId}" }) { ... on PauseBatchExportPayload { batchExport { name } } } }`,
    );
    expect(body).toEqual({ data: { pauseBatchExport: { batchExport: { name: 'S3 export' } } } });
    expect(upstream.requests.map((r) => r.method)).toEqual(['POST', 'GET']);
  });

  it.each([
    // An empty list is a list of invites: the answer shape holds, whatever its count.
    ...WRONG_BODIES.filter(([name]) => name !== 'a body of []'),
    ['a list holding a number', (res: ServerResponse) => sendJson(res, 201, [42])],
    ['a list holding an invite without an id', (res: ServerResponse) => sendJson(res, 201, [{ ...invite, id: null }])],
    ['an object that is no invite', (res: ServerResponse) => sendJson(res, 200, {})],
  ] as WrongAnswer[])('bulkCreateInvites answered with %s', async (_name, send) => {
    answerWith({ [`POST ${o}/invites/bulk/`]: send });
    const { body } =
      await run(`mutation { bulkCreateInvites(input: { organizationId: "${orgId}", invites: [{ targetEmail: "bob@acme.example" }] }) {
      ... on BulkCreateInvitesPayload { invites { databaseId } } } }`);
    expectOneUpstreamError(body, ['bulkCreateInvites']);
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([`POST ${o}/invites/bulk/`]);
  });

  it('bulkCreateInvites re-reading the invites skips one whose e-mail is null instead of failing', async () => {
    const second = { ...invite, id: MEMBER, target_email: 'cat@acme.example' };
    answerWith({
      [`POST ${o}/invites/bulk/`]: invite, // the seed's answer: one invite for the two sent
      [`GET ${o}/invites/`]: page({ ...invite, id: USER, target_email: null }, invite, second),
    });
    const { body } = await run(`mutation { bulkCreateInvites(input: { organizationId: "${orgId}",
      invites: [{ targetEmail: "bob@acme.example" }, { targetEmail: "cat@acme.example" }] }) {
      ... on BulkCreateInvitesPayload { invites { targetEmail } } } }`);
    expect(body).toEqual({
      data: { bulkCreateInvites: { invites: [{ targetEmail: 'bob@acme.example' }, { targetEmail: 'cat@acme.example' }] } },
    });
    expect(upstream.requests.map((r) => r.method)).toEqual(['POST', 'GET']);
  });
});

const MARKERS = ['LEAK', '../../x'];
/** The codes the contract lets an error carry. */
const CONTRACT_CODES = [
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'RATE_LIMITED',
  'UPSTREAM_ERROR',
  'UPSTREAM_TIMEOUT',
  'BAD_USER_INPUT',
  'QUERY_TOO_COMPLEX',
  'OVERLOADED',
  'IDEMPOTENCY_CONFLICT',
  'IDEMPOTENCY_KEY_REUSED',
  'IDEMPOTENCY_UNAVAILABLE',
];

/** The answers the property may break, by route. */
const TARGETS = [`GET ${o}/`, `GET ${o}/batch_exports/`, `GET ${o}/members/`];

/** An organization with its lists (`a`), and a record of another organization (`b`) that no answer broken here reaches. */
const EVERYTHING = `{
  a: organization(databaseId: "${ORG}") {
    id databaseId name slug createdAt membershipLevel memberCount isMemberJoinEmailEnabled metadata teams availableProductFeatures
    projects { id databaseId name }
    batchExports { totalCount pageInfo { hasNextPage } nodes {
      id databaseId name paused destination { type config } latestRuns { id databaseId status recordsCompleted batchExport } } }
    members { totalCount nodes { id databaseId level user { databaseId uuid email firstName } } }
  }
  b: node(id: "${globalId('BatchExport', OTHER_ORG, EXPORT)}") { id ... on BatchExport { name destination { type } latestRuns { databaseId } } }
}`;

/** Values to put in an answer: any JSON, markers, edge numbers, and values nested far deeper than any limit. */
const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(...MARKERS),
  fc.string().map((text) => `${MARKERS[text.length % MARKERS.length]}${text}`),
  fc.constantFrom(null, -5, 1.5, 2 ** 31, 1e300, '', {}, [], { LEAK: '../../x' }),
  fc.constantFrom(new DeepJson(5000), new DeepJson(5000, 'array'), new DeepJson(33)),
  fc.constant(undefined), // the key is left out (a list item becomes null; the whole answer, an empty body)
);

/** Every place in a JSON value, as key paths; the empty path is the whole value. */
function placesIn(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  const places = [path];
  if (Array.isArray(value)) for (const [i, item] of value.entries()) places.push(...placesIn(item, [...path, i]));
  else if (value && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) places.push(...placesIn(inner, [...path, key]));
  return places;
}

function replaced(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[head] = replaced(copy[head], rest, replacement);
  return copy;
}

describe('any value anywhere in an upstream answer', () => {
  it('fails only what it touches, with a contract code and nothing of it quoted', async () => {
    const baseline = (await run(EVERYTHING)).body;
    expect(baseline.errors).toBeUndefined();
    expect(baseline.data.a.batchExports.nodes).toHaveLength(1);
    expect(baseline.data.b.name).toBe('S3 export');

    const breakage = fc
      .constantFrom(...TARGETS)
      .chain((route) => fc.record({ route: fc.constant(route), place: fc.constantFrom(...placesIn(VALID[route])), replacement: anyValue }));
    await fc.assert(
      fc.asyncProperty(breakage, async ({ route, place, replacement }) => {
        const answer = replaced(VALID[route], place, replacement);
        answerWith({ [route]: (res: ServerResponse) => sendText(res, 200, answer === undefined ? '' : jsonText(answer)) });
        const { status, body } = await run(EVERYTHING);
        expect(status).toBe(200);
        expect(body.data.b).toEqual(baseline.data.b);
        // When a list was broken, the organization's record and its other list are untouched.
        if (route.endsWith('/batch_exports/')) expect(body.data.a.members).toEqual(baseline.data.a.members);
        if (route.endsWith('/members/')) expect(body.data.a.batchExports).toEqual(baseline.data.a.batchExports);
        for (const error of body.errors ?? []) {
          expect(CONTRACT_CODES).toContain(error.extensions?.code);
          for (const marker of MARKERS) expect(error.message).not.toContain(marker);
        }
      }),
      { numRuns: 200 },
    );
  });
});
