import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { createRestClient, type RestClient } from '../../src/upstream/client.ts';
import { InvalidPathSegmentError } from '../../src/upstream/paths.ts';
import { createUpstreamTransport, type UpstreamTransport } from '../../src/upstream/transport/transport.ts';
import { UpstreamError } from '../../src/upstream/upstream-error.ts';
import { TRANSPORT_DEFAULTS } from '../support/defaults.ts';
import { sendJson } from '../support/scripted-answers.ts';

const KEY = 'phx_client_key';
const ORG = '0190a1b2-0000-7000-8000-000000000001';
const ID = '0190a1b2-0000-7000-8000-0000000000ff';
const PROJECT = '42';
const BODY = { name: 'x', description: null };

let upstream: ReferenceApi;
let transport: UpstreamTransport;
let client: RestClient;

beforeAll(async () => {
  upstream = await startReferenceApi();
  transport = createUpstreamTransport({ baseUrl: upstream.url, ...TRANSPORT_DEFAULTS });
  client = createRestClient(transport, { key: KEY, requestId: 'rid-1' });
});

afterAll(async () => {
  await transport.close();
  await upstream.close();
});

beforeEach(() => {
  upstream.requests.length = 0;
  upstream.answerWith((_req, res) => sendJson(res, 200, RECORD));
});

type Row = [name: string, call: (c: RestClient) => Promise<unknown>, method: string, path: string, answer: unknown, body?: unknown];

// Answers of the shape each method expects (src/upstream/answer-shapes.ts); the client hands them back unchanged.
const RECORD = { id: ID, name: 'x' };
const ITEM = { id: 7, name: 'x' };
const MEMBER = { id: ID, user: { uuid: ID } };
const page = (record: object) => ({ count: 1, next: null, previous: null, results: [record] });
const PAGE = page(RECORD);
const ANY = ['any', { json: 'value' }];
const NONE = undefined;

const o = `/api/organizations/${ORG}`;
const pd = `${o}/pipeline_destinations`;
const s = `/api/projects/${PROJECT}/surveys`;

// Seed section 4, one row per endpoint.
const rows: Row[] = [
  ['listOrganizations', (c) => c.listOrganizations(), 'GET', '/api/organizations/', PAGE],
  ['getOrganization', (c) => c.getOrganization(ORG), 'GET', `${o}/`, RECORD],
  ['createOrganization', (c) => c.createOrganization(BODY), 'POST', '/api/organizations/', RECORD, BODY],
  ['updateOrganization', (c) => c.updateOrganization(ORG, BODY), 'PATCH', `${o}/`, RECORD, BODY],
  ['deleteOrganization', (c) => c.deleteOrganization(ORG), 'DELETE', `${o}/`, NONE],
  ['listBatchExports', (c) => c.listBatchExports(ORG), 'GET', `${o}/batch_exports/`, PAGE],
  ['getBatchExport', (c) => c.getBatchExport(ORG, ID), 'GET', `${o}/batch_exports/${ID}/`, RECORD],
  ['createBatchExport', (c) => c.createBatchExport(ORG, BODY), 'POST', `${o}/batch_exports/`, RECORD, BODY],
  ['updateBatchExport', (c) => c.updateBatchExport(ORG, ID, BODY), 'PATCH', `${o}/batch_exports/${ID}/`, RECORD, BODY],
  ['deleteBatchExport', (c) => c.deleteBatchExport(ORG, ID), 'DELETE', `${o}/batch_exports/${ID}/`, NONE],
  ['pauseBatchExport', (c) => c.pauseBatchExport(ORG, ID), 'POST', `${o}/batch_exports/${ID}/pause/`, RECORD],
  ['unpauseBatchExport', (c) => c.unpauseBatchExport(ORG, ID, BODY), 'POST', `${o}/batch_exports/${ID}/unpause/`, RECORD, BODY],
  [
    'backfillBatchExport',
    (c) => c.backfillBatchExport(ORG, ID, { start_at: 'a', end_at: 'b' }),
    'POST',
    `${o}/batch_exports/${ID}/backfill/`,
    RECORD,
    { start_at: 'a', end_at: 'b' },
  ],
  ['listDomains', (c) => c.listDomains(ORG), 'GET', `${o}/domains/`, PAGE],
  ['getDomain', (c) => c.getDomain(ORG, ID), 'GET', `${o}/domains/${ID}/`, RECORD],
  ['createDomain', (c) => c.createDomain(ORG, BODY), 'POST', `${o}/domains/`, RECORD, BODY],
  ['updateDomain', (c) => c.updateDomain(ORG, ID, BODY), 'PATCH', `${o}/domains/${ID}/`, RECORD, BODY],
  ['deleteDomain', (c) => c.deleteDomain(ORG, ID), 'DELETE', `${o}/domains/${ID}/`, NONE],
  ['verifyDomain', (c) => c.verifyDomain(ORG, ID), 'POST', `${o}/domains/${ID}/verify/`, RECORD],
  ['listInvites', (c) => c.listInvites(ORG), 'GET', `${o}/invites/`, PAGE],
  ['createInvite', (c) => c.createInvite(ORG, BODY), 'POST', `${o}/invites/`, RECORD, BODY],
  ['deleteInvite', (c) => c.deleteInvite(ORG, ID), 'DELETE', `${o}/invites/${ID}/`, NONE],
  [
    'bulkCreateInvites',
    (c) => c.bulkCreateInvites(ORG, [{ target_email: 'a@b.c' }]),
    'POST',
    `${o}/invites/bulk/`,
    [RECORD],
    [{ target_email: 'a@b.c' }],
  ],
  ['listMembers', (c) => c.listMembers(ORG), 'GET', `${o}/members/`, page(MEMBER)],
  ['updateMember', (c) => c.updateMember(ORG, ID, { level: 8 }), 'PATCH', `${o}/members/${ID}/`, MEMBER, { level: 8 }],
  ['removeMember', (c) => c.removeMember(ORG, ID), 'DELETE', `${o}/members/${ID}/`, NONE],
  ['listPipelineItems', (c) => c.listPipelineItems('pipeline_destinations', ORG), 'GET', `${pd}/`, page(ITEM)],
  ['getPipelineItem', (c) => c.getPipelineItem('pipeline_frontend_apps', ORG, 7), 'GET', `${o}/pipeline_frontend_apps/7/`, ITEM],
  ['createPipelineItem', (c) => c.createPipelineItem('pipeline_import_apps', ORG, BODY), 'POST', `${o}/pipeline_import_apps/`, ITEM, BODY],
  ['updatePipelineItem', (c) => c.updatePipelineItem('pipeline_destinations', ORG, 7, BODY), 'PATCH', `${pd}/7/`, ITEM, BODY],
  ['deletePipelineItem', (c) => c.deletePipelineItem('pipeline_destinations', ORG, 7), 'DELETE', `${pd}/7/`, NONE],
  [
    'checkPipelineItemForUpdates',
    (c) => c.checkPipelineItemForUpdates('pipeline_import_apps', ORG, 7),
    'GET',
    `${o}/pipeline_import_apps/7/check_for_updates/`,
    ITEM,
  ],
  ['getPipelineItemSource', (c) => c.getPipelineItemSource('pipeline_destinations', ORG, 7), 'GET', `${pd}/7/source/`, ANY],
  [
    'updatePipelineItemSource',
    (c) => c.updatePipelineItemSource('pipeline_destinations', ORG, 7, BODY),
    'PATCH',
    `${pd}/7/update_source/`,
    ITEM,
    BODY,
  ],
  ['upgradePipelineItem', (c) => c.upgradePipelineItem('pipeline_destinations', ORG, 7, BODY), 'POST', `${pd}/7/upgrade/`, ITEM, BODY],
  ['getPipelineFamilyActivity', (c) => c.getPipelineFamilyActivity('pipeline_destinations', ORG), 'GET', `${pd}/activity/`, ANY],
  [
    'getPipelineFamilyExportsUnsubscribeConfigs',
    (c) => c.getPipelineFamilyExportsUnsubscribeConfigs('pipeline_destinations', ORG),
    'GET',
    `${pd}/exports_unsubscribe_configs/`,
    ANY,
  ],
  ['getPipelineFamilyRepository', (c) => c.getPipelineFamilyRepository('pipeline_destinations', ORG), 'GET', `${pd}/repository/`, ANY],
  ['getPipelineFamilyUnused', (c) => c.getPipelineFamilyUnused('pipeline_destinations', ORG), 'GET', `${pd}/unused/`, ANY],
  ['listSurveys', (c) => c.listSurveys(PROJECT), 'GET', `${s}/`, PAGE],
  ['getSurvey', (c) => c.getSurvey(PROJECT, ID), 'GET', `${s}/${ID}/`, RECORD],
  ['createSurvey', (c) => c.createSurvey(PROJECT, BODY), 'POST', `${s}/`, RECORD, BODY],
  ['updateSurvey', (c) => c.updateSurvey(PROJECT, ID, BODY), 'PATCH', `${s}/${ID}/`, RECORD, BODY],
  ['deleteSurvey', (c) => c.deleteSurvey(PROJECT, ID), 'DELETE', `${s}/${ID}/`, NONE],
  ['getSurveysResponsesCount', (c) => c.getSurveysResponsesCount(PROJECT), 'GET', `${s}/responses_count/`, ANY],
];

describe('one method per seed endpoint', () => {
  it('covers every method of the client', () => {
    const prototype = Object.getPrototypeOf(createRestClient(transport, { key: KEY })) as object;
    const methods = Object.getOwnPropertyNames(prototype)
      .filter((name) => name !== 'constructor')
      .sort();
    expect(rows.map(([name]) => name).sort()).toEqual(methods);
  });

  it.each(rows)('%s', async (_name, call, method, path, answer, body) => {
    upstream.answerWith((_req, res) => (answer === NONE ? res.writeHead(204).end() : sendJson(res, 200, answer)));
    const result = await call(client);
    expect(upstream.requests).toHaveLength(1);
    const [sent] = upstream.requests;
    expect(sent).toMatchObject({ method, path, query: {} });
    expect(sent?.body).toEqual(body);
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent?.headers['x-request-id']).toBe('rid-1');
    expect(result).toEqual(answer);
  });
});

describe('lists', () => {
  it('sends limit and offset, and returns the page without following next', async () => {
    const page = { count: 3, next: 'http://elsewhere.example/api/organizations/?offset=2', previous: null, results: [RECORD] };
    upstream.answerWith((_req, res) => sendJson(res, 200, page));
    expect(await client.listDomains(ORG, { limit: 1, offset: 2 })).toEqual(page);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]?.query).toEqual({ limit: '1', offset: '2' });
  });
});

describe('answers', () => {
  it('refuses an answer of another shape as a malformed response, after one call', async () => {
    upstream.answerWith((_req, res) => sendJson(res, 201, { id: 'not-a-uuid' }));
    const error = await client.createDomain(ORG, BODY).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ kind: 'malformed', status: 201, method: 'POST', route: '/api/organizations/:organization_id/domains/' });
    expect(upstream.requests).toHaveLength(1);
  });
});

describe('ids', () => {
  it('encodes awkward ids as one segment', async () => {
    await client.getSurvey('p/1?x', '100% ü');
    expect(upstream.requests[0]?.path).toBe('/api/projects/p%2F1%3Fx/surveys/100%25%20%C3%BC/');
  });

  it.each(['', '.', '..'])('rejects %j before any upstream call', async (id) => {
    await expect(client.getOrganization(id)).rejects.toBeInstanceOf(InvalidPathSegmentError);
    await expect(client.deleteBatchExport(ORG, id)).rejects.toBeInstanceOf(InvalidPathSegmentError);
    expect(upstream.requests).toHaveLength(0);
  });

  it('names the route template in errors', async () => {
    upstream.answerWith((_req, res) => sendJson(res, 404, { detail: 'Not found.' }));
    const error = await client.getPipelineItem('pipeline_destinations', ORG, 7).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).route).toBe('/api/organizations/:organization_id/pipeline_destinations/:id/');
    expect((error as UpstreamError).message).toBe(
      'GET /api/organizations/:organization_id/pipeline_destinations/:id/: upstream answered HTTP 404',
    );
  });
});
