import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRestClient, type RestClient } from '../../src/rest/client.ts';
import { InvalidPathSegmentError } from '../../src/rest/paths.ts';
import { createUpstreamTransport, type UpstreamTransport } from '../../src/rest/transport.ts';
import { UpstreamError } from '../../src/rest/upstream-error.ts';
import { sendJson, startFakeUpstream, type FakeUpstream } from '../support/fake-upstream.ts';

const KEY = 'phx_client_key';
const ORG = '0190a1b2-0000-7000-8000-000000000001';
const ID = '0190a1b2-0000-7000-8000-0000000000ff';
const PROJECT = '42';
const BODY = { name: 'x', description: null };

let upstream: FakeUpstream;
let transport: UpstreamTransport;
let client: RestClient;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  transport = createUpstreamTransport({ baseUrl: upstream.url });
  client = createRestClient(transport, { key: KEY, requestId: 'rid-1' });
});

afterAll(async () => {
  await transport.close();
  await upstream.close();
});

beforeEach(() => {
  upstream.requests.length = 0;
  upstream.handle((req, res) => (req.method === 'DELETE' ? res.writeHead(204).end() : sendJson(res, 200, { echo: req.path })));
});

type Row = [name: string, call: (c: RestClient) => Promise<unknown>, method: string, path: string, body?: unknown];

const o = `/api/organizations/${ORG}`;
const pd = `${o}/pipeline_destinations`;
const s = `/api/projects/${PROJECT}/surveys`;

// Seed section 4, one row per endpoint.
const rows: Row[] = [
  ['listOrganizations', (c) => c.listOrganizations(), 'GET', '/api/organizations/'],
  ['getOrganization', (c) => c.getOrganization(ORG), 'GET', `${o}/`],
  ['createOrganization', (c) => c.createOrganization(BODY), 'POST', '/api/organizations/', BODY],
  ['updateOrganization', (c) => c.updateOrganization(ORG, BODY), 'PATCH', `${o}/`, BODY],
  ['deleteOrganization', (c) => c.deleteOrganization(ORG), 'DELETE', `${o}/`],
  ['listBatchExports', (c) => c.listBatchExports(ORG), 'GET', `${o}/batch_exports/`],
  ['getBatchExport', (c) => c.getBatchExport(ORG, ID), 'GET', `${o}/batch_exports/${ID}/`],
  ['createBatchExport', (c) => c.createBatchExport(ORG, BODY), 'POST', `${o}/batch_exports/`, BODY],
  ['updateBatchExport', (c) => c.updateBatchExport(ORG, ID, BODY), 'PATCH', `${o}/batch_exports/${ID}/`, BODY],
  ['deleteBatchExport', (c) => c.deleteBatchExport(ORG, ID), 'DELETE', `${o}/batch_exports/${ID}/`],
  ['pauseBatchExport', (c) => c.pauseBatchExport(ORG, ID), 'POST', `${o}/batch_exports/${ID}/pause/`],
  ['unpauseBatchExport', (c) => c.unpauseBatchExport(ORG, ID, BODY), 'POST', `${o}/batch_exports/${ID}/unpause/`, BODY],
  ['backfillBatchExport', (c) => c.backfillBatchExport(ORG, ID, { start_at: 'a', end_at: 'b' }), 'POST', `${o}/batch_exports/${ID}/backfill/`, { start_at: 'a', end_at: 'b' }],
  ['listDomains', (c) => c.listDomains(ORG), 'GET', `${o}/domains/`],
  ['getDomain', (c) => c.getDomain(ORG, ID), 'GET', `${o}/domains/${ID}/`],
  ['createDomain', (c) => c.createDomain(ORG, BODY), 'POST', `${o}/domains/`, BODY],
  ['updateDomain', (c) => c.updateDomain(ORG, ID, BODY), 'PATCH', `${o}/domains/${ID}/`, BODY],
  ['deleteDomain', (c) => c.deleteDomain(ORG, ID), 'DELETE', `${o}/domains/${ID}/`],
  ['verifyDomain', (c) => c.verifyDomain(ORG, ID), 'POST', `${o}/domains/${ID}/verify/`],
  ['listInvites', (c) => c.listInvites(ORG), 'GET', `${o}/invites/`],
  ['createInvite', (c) => c.createInvite(ORG, BODY), 'POST', `${o}/invites/`, BODY],
  ['deleteInvite', (c) => c.deleteInvite(ORG, ID), 'DELETE', `${o}/invites/${ID}/`],
  ['bulkCreateInvites', (c) => c.bulkCreateInvites(ORG, [{ target_email: 'a@b.c' }]), 'POST', `${o}/invites/bulk/`, [{ target_email: 'a@b.c' }]],
  ['listMembers', (c) => c.listMembers(ORG), 'GET', `${o}/members/`],
  ['updateMember', (c) => c.updateMember(ORG, ID, { level: 8 }), 'PATCH', `${o}/members/${ID}/`, { level: 8 }],
  ['removeMember', (c) => c.removeMember(ORG, ID), 'DELETE', `${o}/members/${ID}/`],
  ['listPipelineItems', (c) => c.listPipelineItems('pipeline_destinations', ORG), 'GET', `${pd}/`],
  ['getPipelineItem', (c) => c.getPipelineItem('pipeline_frontend_apps', ORG, 7), 'GET', `${o}/pipeline_frontend_apps/7/`],
  ['createPipelineItem', (c) => c.createPipelineItem('pipeline_import_apps', ORG, BODY), 'POST', `${o}/pipeline_import_apps/`, BODY],
  ['updatePipelineItem', (c) => c.updatePipelineItem('pipeline_destinations', ORG, 7, BODY), 'PATCH', `${pd}/7/`, BODY],
  ['deletePipelineItem', (c) => c.deletePipelineItem('pipeline_destinations', ORG, 7), 'DELETE', `${pd}/7/`],
  ['checkPipelineItemForUpdates', (c) => c.checkPipelineItemForUpdates('pipeline_import_apps', ORG, 7), 'GET', `${o}/pipeline_import_apps/7/check_for_updates/`],
  ['getPipelineItemSource', (c) => c.getPipelineItemSource('pipeline_destinations', ORG, 7), 'GET', `${pd}/7/source/`],
  ['updatePipelineItemSource', (c) => c.updatePipelineItemSource('pipeline_destinations', ORG, 7, BODY), 'PATCH', `${pd}/7/update_source/`, BODY],
  ['upgradePipelineItem', (c) => c.upgradePipelineItem('pipeline_destinations', ORG, 7, BODY), 'POST', `${pd}/7/upgrade/`, BODY],
  ['getPipelineFamilyActivity', (c) => c.getPipelineFamilyActivity('pipeline_destinations', ORG), 'GET', `${pd}/activity/`],
  ['getPipelineFamilyExportsUnsubscribeConfigs', (c) => c.getPipelineFamilyExportsUnsubscribeConfigs('pipeline_destinations', ORG), 'GET', `${pd}/exports_unsubscribe_configs/`],
  ['getPipelineFamilyRepository', (c) => c.getPipelineFamilyRepository('pipeline_destinations', ORG), 'GET', `${pd}/repository/`],
  ['getPipelineFamilyUnused', (c) => c.getPipelineFamilyUnused('pipeline_destinations', ORG), 'GET', `${pd}/unused/`],
  ['listSurveys', (c) => c.listSurveys(PROJECT), 'GET', `${s}/`],
  ['getSurvey', (c) => c.getSurvey(PROJECT, ID), 'GET', `${s}/${ID}/`],
  ['createSurvey', (c) => c.createSurvey(PROJECT, BODY), 'POST', `${s}/`, BODY],
  ['updateSurvey', (c) => c.updateSurvey(PROJECT, ID, BODY), 'PATCH', `${s}/${ID}/`, BODY],
  ['deleteSurvey', (c) => c.deleteSurvey(PROJECT, ID), 'DELETE', `${s}/${ID}/`],
  ['getSurveysResponsesCount', (c) => c.getSurveysResponsesCount(PROJECT), 'GET', `${s}/responses_count/`],
];

describe('one method per seed endpoint', () => {
  it('covers every method of the client', () => {
    const prototype = Object.getPrototypeOf(createRestClient(transport, { key: KEY })) as object;
    const methods = Object.getOwnPropertyNames(prototype).filter((name) => name !== 'constructor').sort();
    expect(rows.map(([name]) => name).sort()).toEqual(methods);
  });

  it.each(rows)('%s', async (_name, call, method, path, body) => {
    const result = await call(client);
    expect(upstream.requests).toHaveLength(1);
    const [sent] = upstream.requests;
    expect(sent).toMatchObject({ method, path, query: {} });
    expect(sent?.body === '' ? undefined : JSON.parse(sent?.body ?? '')).toEqual(body);
    expect(sent?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(sent?.headers['x-request-id']).toBe('rid-1');
    expect(result).toEqual(method === 'DELETE' ? undefined : { echo: path });
  });
});

describe('lists', () => {
  it('sends limit and offset, and returns the page without following next', async () => {
    const page = { count: 3, next: 'http://elsewhere.example/api/organizations/?offset=2', previous: null, results: [{ id: 'a' }] };
    upstream.handle((_req, res) => sendJson(res, 200, page));
    expect(await client.listDomains(ORG, { limit: 1, offset: 2 })).toEqual(page);
    expect(upstream.requests).toHaveLength(1);
    expect(upstream.requests[0]?.query).toEqual({ limit: '1', offset: '2' });
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
    upstream.handle((_req, res) => sendJson(res, 404, { detail: 'Not found.' }));
    const error = await client.getPipelineItem('pipeline_destinations', ORG, 7).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).route).toBe('/api/organizations/:organization_id/pipeline_destinations/:id/');
    expect((error as UpstreamError).message).toBe('GET /api/organizations/:organization_id/pipeline_destinations/:id/: upstream answered HTTP 404');
  });
});
