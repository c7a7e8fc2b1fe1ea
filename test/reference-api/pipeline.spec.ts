import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { call, demoOrgs } from './support.ts';

let api: ReferenceApi;
let org: string;
beforeAll(async () => {
  api = await startReferenceApi();
  org = `/api/organizations/${demoOrgs(api).hedgehog.id}`;
});
afterAll(() => api.close());

const FIELDS = [
  'id',
  'plugin_type',
  'name',
  'description',
  'url',
  'icon',
  'config_schema',
  'tag',
  'latest_tag',
  'is_global',
  'organization_id',
  'organization_name',
  'capabilities',
  'metrics',
  'public_jobs',
  'hog_function_migration_available',
];

describe.each(['pipeline_destinations', 'pipeline_frontend_apps', 'pipeline_import_apps'])('%s', (family) => {
  it("lists the family's demo items with integer ids", async () => {
    const { status, body } = await call(api, 'GET', `${org}/${family}/`);
    expect(status).toBe(200);
    expect(body.count).toBeGreaterThanOrEqual(2);
    expect(Object.keys(body.results[0]).sort()).toEqual([...FIELDS].sort());
    expect(body.results[0]).toMatchObject({ organization_name: 'Hedgehog Analytics', organization_id: demoOrgs(api).hedgehog.id });
    expect(Number.isInteger(body.results[0].id)).toBe(true);
  });

  it('creates, retrieves, updates, checks for updates and deletes', async () => {
    const made = await call(api, 'POST', `${org}/${family}/`, {
      body: { plugin_type: 'custom', name: 'Mine', url: 'ignored', config_schema: [{ key: 'k' }] },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ plugin_type: 'custom', name: 'Mine', url: null, config_schema: [{ key: 'k' }], is_global: false });
    const item = `${org}/${family}/${made.body.id}`;
    expect((await call(api, 'GET', item)).body).toEqual(made.body);
    expect((await call(api, 'PATCH', `${item}/`, { body: { tag: 'v2', is_global: true } })).body).toMatchObject({
      tag: 'v2',
      is_global: true,
    });
    const check = await call(api, 'GET', `${item}/check_for_updates/`);
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ id: made.body.id, latest_tag: 'v2' });
    expect((await call(api, 'DELETE', `${item}/`)).status).toBe(204);
    expect((await call(api, 'GET', `${item}/`)).status).toBe(404);
  });

  it('validates plugin_type', async () => {
    expect((await call(api, 'POST', `${org}/${family}/`, { body: { name: 'x' } })).body).toMatchObject({
      code: 'required',
      attr: 'plugin_type',
    });
    expect((await call(api, 'POST', `${org}/${family}/`, { body: { plugin_type: 'plugin' } })).body).toEqual({
      type: 'validation_error',
      code: 'invalid_choice',
      detail: '"plugin" is not a valid choice.',
      attr: 'plugin_type',
    });
  });

  it('keeps families apart: an item of another family is a 404 here', async () => {
    const other = family === 'pipeline_destinations' ? 'pipeline_import_apps' : 'pipeline_destinations';
    const foreign = api.store.pipelineItemsOf(demoOrgs(api).hedgehog.id, other)[0]!;
    expect((await call(api, 'GET', `${org}/${family}/${foreign.id}/`)).status).toBe(404);
    expect((await call(api, 'GET', `${org}/${family}/not-a-number/`)).status).toBe(404);
  });
});

describe.each(['pipeline_destinations', 'pipeline_frontend_apps'])('%s extra operations (seed shapes)', (family) => {
  it('source, update_source and upgrade answer with the record', async () => {
    const first = api.store.pipelineItemsOf(demoOrgs(api).hedgehog.id, family as 'pipeline_destinations')[0]!;
    const item = `${org}/${family}/${first.id}`;
    expect((await call(api, 'GET', `${item}/source/`)).body).toMatchObject({ id: first.id, name: first.name });
    expect((await call(api, 'PATCH', `${item}/update_source/`, { body: { description: 'Edited' } })).body).toMatchObject({
      id: first.id,
      description: 'Edited',
    });
    const latest = first.latest_tag;
    const upgraded = await call(api, 'POST', `${item}/upgrade/`, { body: {} });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body).toMatchObject({ id: first.id, tag: latest });
  });

  it("activity, exports_unsubscribe_configs, repository and unused answer with the family's first record", async () => {
    const first = api.store.pipelineItemsOf(demoOrgs(api).hedgehog.id, family as 'pipeline_destinations')[0]!;
    for (const op of ['activity', 'exports_unsubscribe_configs', 'repository', 'unused']) {
      const { status, body } = await call(api, 'GET', `${org}/${family}/${op}/`);
      expect(status).toBe(200);
      expect(body.id).toBe(first.id);
    }
  });

  it('needs plugin:write for the (*) writes and plugin:read for the (*) reads', async () => {
    const first = api.store.pipelineItemsOf(demoOrgs(api).hedgehog.id, family as 'pipeline_destinations')[0]!;
    expect((await call(api, 'POST', `${org}/${family}/${first.id}/upgrade/`, { key: 'readOnly' })).body.detail).toBe(
      "API key missing required scope 'plugin:write'",
    );
    expect((await call(api, 'GET', `${org}/${family}/unused/`, { key: 'organizationRead' })).body.detail).toBe(
      "API key missing required scope 'plugin:read'",
    );
    expect((await call(api, 'GET', `${org}/${family}/unused/`, { key: 'readOnly' })).status).toBe(200);
  });
});

describe('pipeline_import_apps', () => {
  it('has no source, upgrade or family-level operations', async () => {
    const first = api.store.pipelineItemsOf(demoOrgs(api).hedgehog.id, 'pipeline_import_apps')[0]!;
    expect((await call(api, 'GET', `${org}/pipeline_import_apps/${first.id}/source/`)).status).toBe(404);
    expect((await call(api, 'GET', `${org}/pipeline_import_apps/activity/`)).status).toBe(404);
  });
});
