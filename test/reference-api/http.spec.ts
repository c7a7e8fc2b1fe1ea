import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi, USE_ROUTES } from '../../src/reference-api/index.ts';
import { call, demoOrgs, userUuid } from './support.ts';

let api: ReferenceApi;
beforeAll(async () => {
  api = await startReferenceApi();
});
afterAll(() => api.close());

describe('authentication', () => {
  it('answers 401 not_authenticated without credentials (or with a non-Bearer header)', async () => {
    const missing = await call(api, 'GET', '/api/organizations/', { key: null });
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({
      type: 'authentication_error',
      code: 'not_authenticated',
      detail: 'Authentication credentials were not provided.',
      attr: null,
    });
    expect(missing.headers['www-authenticate']).toBeDefined();
    const basic = await call(api, 'GET', '/api/organizations/', { key: null, headers: { authorization: 'Basic dXNlcjpwdw==' } });
    expect(basic.body.code).toBe('not_authenticated');
  });

  it('answers 401 authentication_failed for an unknown key', async () => {
    const { status, body } = await call(api, 'GET', '/api/organizations/', { key: 'phx_unknown' });
    expect(status).toBe(401);
    expect(body).toEqual({
      type: 'authentication_error',
      code: 'authentication_failed',
      detail: 'Personal API key found in request Authorization header is invalid.',
      attr: null,
    });
  });

  it('answers 403 for a key without any scope', async () => {
    const { status, body } = await call(api, 'GET', '/api/organizations/', { key: 'noScopes' });
    expect(status).toBe(403);
    expect(body).toEqual({
      type: 'authentication_error',
      code: 'permission_denied',
      detail: "API key missing required scope 'organization:read'",
      attr: null,
    });
  });

  it('checks scope before membership: a scope-less key gets 403 even for an organization it is not in', async () => {
    const { elsewhere } = demoOrgs(api);
    expect((await call(api, 'GET', `/api/organizations/${elsewhere.id}/batch_exports/`, { key: 'organizationRead' })).status).toBe(403);
    expect((await call(api, 'GET', `/api/organizations/${elsewhere.id}/batch_exports/`)).status).toBe(404);
  });
});

describe('routing', () => {
  it('answers 404 for an unknown path, before authentication', async () => {
    const { status, body } = await call(api, 'GET', '/api/nothing-here/', { key: null });
    expect(status).toBe(404);
    expect(body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    expect((await call(api, 'GET', '/api/organizations//')).status).toBe(404);
  });

  it('answers 405 for a known path with the wrong method', async () => {
    const { status, body, headers } = await call(api, 'PUT', '/api/organizations/', { body: { name: 'x' } });
    expect(status).toBe(405);
    expect(body).toEqual({ type: 'invalid_request', code: 'method_not_allowed', detail: 'Method "PUT" not allowed.', attr: null });
    expect(headers.allow).toBe('GET, POST');
    const { hedgehog } = demoOrgs(api);
    expect((await call(api, 'DELETE', `/api/organizations/${hedgehog.id}/members/`)).status).toBe(405);
    expect((await call(api, 'GET', `/api/organizations/${hedgehog.id}/batch_exports/x/pause/`)).status).toBe(405);
  });

  it('answers every path with and without the trailing slash', async () => {
    const { hedgehog } = demoOrgs(api);
    const exportId = api.store.batchExportsOf(hedgehog.id)[0]!.id;
    const nps = [...api.store.surveys.values()].find((s) => s.name === 'Net Promoter Score')!.id;
    const destination = api.store.pipelineItemsOf(hedgehog.id, 'pipeline_destinations')[0]!.id;
    const paths = [
      '/api/organizations',
      `/api/organizations/${hedgehog.id}`,
      `/api/organizations/${hedgehog.id}/batch_exports/${exportId}`,
      `/api/organizations/${hedgehog.id}/domains`,
      `/api/organizations/${hedgehog.id}/invites`,
      `/api/organizations/${hedgehog.id}/members`,
      `/api/organizations/${hedgehog.id}/pipeline_destinations/${destination}/source`,
      `/api/organizations/${hedgehog.id}/pipeline_frontend_apps/unused`,
      `/api/projects/1/surveys/${nps}`,
      '/api/projects/1/surveys/responses_count',
    ];
    for (const path of paths) {
      const bare = await call(api, 'GET', path);
      const slashed = await call(api, 'GET', `${path}/`);
      expect([path, bare.status]).toEqual([path, 200]);
      expect(bare.body).toEqual(slashed.body);
    }
  });

  it('answers 400 parse_error for a malformed JSON body', async () => {
    const { status, body } = await call(api, 'POST', '/api/organizations/', { rawBody: '{"name": ' });
    expect(status).toBe(400);
    expect(body).toMatchObject({ type: 'validation_error', code: 'parse_error', attr: null });
    expect(body.detail).toMatch(/^JSON parse error - /);
  });

  it('treats an empty body as {}', async () => {
    const { status, body } = await call(api, 'POST', '/api/organizations/', { rawBody: '' });
    expect(status).toBe(400);
    expect(body.attr).toBe('name');
  });
});

describe('recorded requests', () => {
  it('records method, path, query, lower-cased headers and the parsed body, in order', async () => {
    api.clearRequests();
    const { hedgehog } = demoOrgs(api);
    await call(api, 'GET', `/api/organizations/${hedgehog.id}/batch_exports/?limit=5&offset=10`, { headers: { 'X-Trace-Id': 'abc' } });
    await call(api, 'PATCH', `/api/organizations/${hedgehog.id}/members/${userUuid(api, 3)}`, { body: { level: 1 } });
    await call(api, 'POST', '/api/organizations/', { rawBody: 'not json' });
    expect(api.requests).toHaveLength(3);
    expect(api.requests[0]).toMatchObject({
      method: 'GET',
      path: `/api/organizations/${hedgehog.id}/batch_exports/`,
      query: { limit: '5', offset: '10' },
      headers: { authorization: `Bearer ${api.keys.demo}`, 'x-trace-id': 'abc' },
      body: undefined,
    });
    expect(api.requests[1]).toMatchObject({ method: 'PATCH', body: { level: 1 }, query: {} });
    expect(api.requests[2]?.body).toBe('not json');
    api.clearRequests();
    expect(api.requests).toHaveLength(0);
  });

  it('records requests that fail too (401, 404)', async () => {
    api.clearRequests();
    await call(api, 'GET', '/api/organizations/', { key: null });
    await call(api, 'GET', '/api/unknown');
    expect(api.requests.map((r) => r.path)).toEqual(['/api/organizations/', '/api/unknown']);
  });
});

describe('scripted answers (tests only)', () => {
  it('answer in place of the routes, recorded as usual, until set back to null', async () => {
    api.clearRequests();
    api.answerWith((req, res) => res.writeHead(418, { 'content-type': 'application/json' }).end(JSON.stringify({ saw: req.body })));
    try {
      const scripted = await call(api, 'POST', '/api/organizations/?x=1', { body: { name: 'Not created' } });
      expect(scripted).toMatchObject({ status: 418, body: { saw: { name: 'Not created' } } });
      expect(api.requests).toMatchObject([
        { method: 'POST', path: '/api/organizations/', query: { x: '1' }, body: { name: 'Not created' } },
      ]);
      expect([...api.store.organizations.values()].some((org) => org.name === 'Not created')).toBe(false);
    } finally {
      api.answerWith(null);
    }
    expect((await call(api, 'GET', '/api/organizations/')).status).toBe(200);
  });

  it('let the routes answer when they return USE_ROUTES', async () => {
    const seen: string[] = [];
    api.answerWith((req) => {
      seen.push(req.path);
      return USE_ROUTES;
    });
    try {
      const { status, body } = await call(api, 'GET', '/api/organizations/');
      expect(status).toBe(200);
      expect(body.results.map((org: { id: string }) => org.id)).toContain(demoOrgs(api).hedgehog.id);
      expect(seen).toEqual(['/api/organizations/']);
    } finally {
      api.answerWith(null);
    }
  });
});

describe('instances', () => {
  it('share no state, and seed the same deterministic demo data', async () => {
    const other = await startReferenceApi();
    try {
      expect(other.url).not.toBe(api.url);
      expect(other.keys).toEqual(api.keys);
      expect(demoOrgs(other).hedgehog.id).toBe(demoOrgs(api).hedgehog.id);
      expect(other.store).not.toBe(api.store);
      const made = await call(other, 'POST', '/api/organizations/', { body: { name: 'Only in the other' } });
      expect(api.store.organizations.has(made.body.id)).toBe(false);
      expect((await call(api, 'GET', `/api/organizations/${made.body.id}/`)).status).toBe(404);
      other.settings.liveShapes = true;
      expect(api.settings.liveShapes).toBe(false);
      api.clearRequests();
      await call(other, 'GET', '/api/organizations/');
      expect(api.requests).toHaveLength(0);
      expect(other.requests.length).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });

  it('starts empty with demoData: false, and takes custom keys', async () => {
    const empty = await startReferenceApi({
      demoData: false,
      keys: [{ key: 'phx_custom', userId: 1, scopes: ['organization:read'], label: 'demo' }],
    });
    try {
      expect(empty.keys).toEqual({ demo: 'phx_custom' });
      const { status, body } = await call(empty, 'GET', '/api/organizations/');
      expect(status).toBe(200);
      expect(body).toEqual({ count: 0, next: null, previous: null, results: [] });
      expect(empty.store.users.size).toBeGreaterThan(0);
    } finally {
      await empty.close();
    }
  });

  it('answers HEAD like GET, without a body', async () => {
    const response = await request(`${api.url}/api/organizations/`, {
      method: 'HEAD',
      headers: { authorization: `Bearer ${api.keys.demo}` },
    });
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('');
  });
});
