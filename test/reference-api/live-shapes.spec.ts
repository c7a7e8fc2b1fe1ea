import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { call, demoOrgs } from './support.ts';

// `liveShapes` switches the action endpoints from the seed's documented answers to the live service's.
let api: ReferenceApi;
let org: string;
beforeAll(async () => {
  api = await startReferenceApi();
  org = `/api/organizations/${demoOrgs(api).hedgehog.id}`;
});
afterAll(() => api.close());
afterEach(() => {
  api.settings.liveShapes = false;
});

const S3 = { type: 'S3', config: {} };

describe('live shapes', () => {
  it('pause / unpause answer {paused}', async () => {
    const { body: made } = await call(api, 'POST', `${org}/batch_exports/`, { body: { name: 'Live', destination: S3, interval: 'hour' } });
    api.settings.liveShapes = true;
    expect(await call(api, 'POST', `${org}/batch_exports/${made.id}/pause/`)).toMatchObject({ status: 200, body: { paused: true } });
    expect(api.store.batchExports.get(made.id)?.paused).toBe(true);
    expect(await call(api, 'POST', `${org}/batch_exports/${made.id}/unpause/`)).toMatchObject({ status: 200, body: { paused: false } });
    expect(api.store.batchExports.get(made.id)?.paused).toBe(false);
  });

  it('backfill answers {backfill_id} naming the new run', async () => {
    const { body: made } = await call(api, 'POST', `${org}/batch_exports/`, {
      body: { name: 'Live backfill', destination: S3, interval: 'day' },
    });
    api.settings.liveShapes = true;
    const { status, body } = await call(api, 'POST', `${org}/batch_exports/${made.id}/backfill/`, {
      body: { start_at: '2026-01-01T00:00:00Z', end_at: '2026-01-03T00:00:00Z' },
    });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(['backfill_id']);
    expect(body.backfill_id).toBe(api.store.batchExports.get(made.id)?.latest_runs[0]?.id);
  });

  it('bulk invites answers 201 with every invite created', async () => {
    api.settings.liveShapes = true;
    const { status, body } = await call(api, 'POST', `${org}/invites/bulk/`, {
      body: [{ target_email: 'l1@hedgehog.example' }, { target_email: 'l2@hedgehog.example' }],
    });
    expect(status).toBe(201);
    expect(body.map((i: any) => i.target_email)).toEqual(['l1@hedgehog.example', 'l2@hedgehog.example']);
  });

  it('responses_count answers {survey uuid: count}', async () => {
    api.settings.liveShapes = true;
    const { body } = await call(api, 'GET', '/api/projects/1/surveys/responses_count/');
    const byName = Object.fromEntries([...api.store.surveys.values()].map((s) => [s.name, s.id]));
    expect(body).toEqual({ [byName['Net Promoter Score']!]: 42, [byName['Feature feedback']!]: 7 });
  });

  it('check_for_updates answers {plugin: record}', async () => {
    const item = api.store.pipelineItemsOf(demoOrgs(api).hedgehog.id, 'pipeline_import_apps')[0]!;
    api.settings.liveShapes = true;
    const { body } = await call(api, 'GET', `${org}/pipeline_import_apps/${item.id}/check_for_updates/`);
    expect(body.plugin).toMatchObject({ id: item.id, name: item.name });
  });

  it('source and update_source speak in source files', async () => {
    const item = api.store.pipelineItemsOf(demoOrgs(api).hedgehog.id, 'pipeline_frontend_apps').find((p) => p.plugin_type === 'source')!;
    api.settings.liveShapes = true;
    const source = await call(api, 'GET', `${org}/pipeline_frontend_apps/${item.id}/source/`);
    expect(Object.keys(source.body).sort()).toEqual(['plugin.json', 'site.ts']);
    const updated = await call(api, 'PATCH', `${org}/pipeline_frontend_apps/${item.id}/update_source/`, {
      body: { 'site.ts': 'export {}', 'frontend.tsx': null },
    });
    expect(updated.body['site.ts']).toBe('export {}');
    expect((await call(api, 'PATCH', `${org}/pipeline_frontend_apps/${item.id}/update_source/`, { body: { 'site.ts': 1 } })).status).toBe(
      400,
    );
  });

  it('the family-level GETs answer lists', async () => {
    api.settings.liveShapes = true;
    const destinations = api.store.pipelineItemsOf(demoOrgs(api).hedgehog.id, 'pipeline_destinations');
    const activity = await call(api, 'GET', `${org}/pipeline_destinations/activity/`);
    expect(activity.body.total_count).toBe(activity.body.results.length);
    expect(activity.body.results[0]).toMatchObject({ scope: 'Plugin', activity: expect.any(String) });
    const unused = await call(api, 'GET', `${org}/pipeline_destinations/unused/`);
    expect(unused.body).toEqual(destinations.filter((d) => !d.in_use).map((d) => d.id));
    const configs = await call(api, 'GET', `${org}/pipeline_destinations/exports_unsubscribe_configs/`);
    expect(configs.body).toEqual(
      destinations.filter((d) => d.in_use).map((d) => ({ plugin_id: d.id, plugin_config_id: d.id, config: {} })),
    );
    const repository = await call(api, 'GET', `${org}/pipeline_frontend_apps/repository/`);
    expect(Array.isArray(repository.body)).toBe(true);
    expect(repository.body[0]).toHaveProperty('url');
  });

  it('can be chosen at start', async () => {
    const live = await startReferenceApi({ liveShapes: true });
    try {
      const id = live.store.batchExportsOf(demoOrgs(live).hedgehog.id)[0]!.id;
      expect((await call(live, 'POST', `/api/organizations/${demoOrgs(live).hedgehog.id}/batch_exports/${id}/pause/`)).body).toEqual({
        paused: true,
      });
    } finally {
      await live.close();
    }
  });
});
