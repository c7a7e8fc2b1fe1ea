import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { UNKNOWN_UUID } from '../support/ids.ts';
import { call, demoOrgs } from './support.ts';

let api: ReferenceApi;
let base: string;
beforeAll(async () => {
  api = await startReferenceApi();
  base = `/api/organizations/${demoOrgs(api).hedgehog.id}/batch_exports`;
});
afterAll(() => api.close());

const S3 = { type: 'S3', config: { bucket_name: 'b', region: 'eu-west-1' } };

describe('batch exports', () => {
  it('lists the 35 demo exports of Hedgehog Analytics in creation order, some with runs', async () => {
    const { status, body } = await call(api, 'GET', `${base}/`);
    expect(status).toBe(200);
    expect(body.count).toBe(35);
    expect(body.results[0].name).toBe('S3 events export 01');
    expect(body.results[0].latest_runs).toHaveLength(3);
    const run = body.results[0].latest_runs[0];
    expect(Object.keys(run).sort()).toEqual(
      [
        'id',
        'status',
        'records_completed',
        'latest_error',
        'data_interval_start',
        'data_interval_end',
        'cursor',
        'created_at',
        'finished_at',
        'last_updated_at',
        'records_total_count',
        'batch_export',
        'bytes_exported',
        'backfill',
      ].sort(),
    );
    // A byte count past 2^31, as a busy live export's is.
    expect(Math.max(...body.results[0].latest_runs.map((r: any) => r.bytes_exported ?? 0))).toBeGreaterThan(2 ** 31);
    expect(Object.keys(body.results[0].destination).sort()).toEqual(['config', 'integration', 'integration_id', 'type']);
    expect(body.results[0]).toMatchObject({ timezone: 'UTC', filters: null, offset_day: null, offset_hour: null });
    expect(body.results[1]).toMatchObject({ interval: 'day', offset_hour: 2 });
    expect(body.results[2]).toMatchObject({ interval: 'week', offset_day: 3, offset_hour: 3, timezone: 'Europe/Berlin' });
    expect(run.batch_export).toBe(body.results[0].id);
    expect(Object.keys(body.results[0]).sort()).toEqual(
      [
        'id',
        'team_id',
        'name',
        'model',
        'destination',
        'interval',
        'paused',
        'created_at',
        'last_updated_at',
        'last_paused_at',
        'start_at',
        'end_at',
        'latest_runs',
        'hogql_query',
        'schema',
        'filters',
        'timezone',
        'offset_day',
        'offset_hour',
      ].sort(),
    );
  });

  it('creates, retrieves, updates and deletes', async () => {
    const made = await call(api, 'POST', `${base}/`, {
      body: { name: 'Nightly', destination: S3, interval: 'day', latest_runs: ['ignored'] },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: 'Nightly',
      model: 'events',
      interval: 'day',
      paused: false,
      latest_runs: [],
      team_id: 1,
      destination: S3,
    });
    const id = made.body.id;
    expect((await call(api, 'GET', `${base}/${id}`)).body).toEqual(made.body);
    const patched = await call(api, 'PATCH', `${base}/${id}/`, {
      body: { model: 'persons', destination: { config: { prefix: 'p/' } }, start_at: '2026-02-01T00:00:00+01:00' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      model: 'persons',
      start_at: '2026-01-31T23:00:00.000000Z',
      destination: { type: 'S3', config: { ...S3.config, prefix: 'p/' } },
    });
    expect((await call(api, 'DELETE', `${base}/${id}/`)).status).toBe(204);
    expect((await call(api, 'GET', `${base}/${id}/`)).status).toBe(404);
  });

  it('validates required fields, enums and timestamps', async () => {
    const required = await call(api, 'POST', `${base}/`, { body: { name: 'x', interval: 'hour' } });
    expect(required.body).toEqual({ type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'destination' });
    const interval = await call(api, 'POST', `${base}/`, { body: { name: 'x', destination: S3, interval: 'fortnight' } });
    expect(interval.body).toEqual({
      type: 'validation_error',
      code: 'invalid_choice',
      detail: '"fortnight" is not a valid choice.',
      attr: 'interval',
    });
    const model = await call(api, 'POST', `${base}/`, { body: { name: 'x', model: 'sessions', destination: S3, interval: 'hour' } });
    expect(model.body).toMatchObject({ code: 'invalid_choice', attr: 'model' });
    const type = await call(api, 'POST', `${base}/`, { body: { name: 'x', destination: { type: 'FTP' }, interval: 'hour' } });
    expect(type.body).toMatchObject({ code: 'invalid_choice', attr: 'destination__type' });
    const when = await call(api, 'POST', `${base}/`, { body: { name: 'x', destination: S3, interval: 'hour', start_at: 'yesterday' } });
    expect(when.body).toMatchObject({ code: 'invalid_input', attr: 'start_at' });
    for (const value of ['every 5 minutes', 'every 15 minutes', 'week']) {
      expect((await call(api, 'POST', `${base}/`, { body: { name: value, destination: S3, interval: value } })).status).toBe(201);
    }
  });

  it('pauses (once), unpauses and backfills, answering with the record (seed shape)', async () => {
    const { body: made } = await call(api, 'POST', `${base}/`, { body: { name: 'Actions', destination: S3, interval: 'hour' } });
    const paused = await call(api, 'POST', `${base}/${made.id}/pause/`);
    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ id: made.id, paused: true });
    expect(paused.body.last_paused_at).toMatch(/Z$/);
    const again = await call(api, 'POST', `${base}/${made.id}/pause`);
    expect(again.body.last_paused_at).toBe(paused.body.last_paused_at);
    const unpaused = await call(api, 'POST', `${base}/${made.id}/unpause/`);
    expect(unpaused.body).toMatchObject({ paused: false, last_paused_at: paused.body.last_paused_at });

    const backfill = await call(api, 'POST', `${base}/${made.id}/backfill/`, {
      body: { start_at: '2026-01-01T00:00:00Z', end_at: '2026-01-02T00:00:00Z' },
    });
    expect(backfill.status).toBe(200);
    expect(backfill.body.latest_runs[0]).toMatchObject({
      status: 'Starting',
      data_interval_start: '2026-01-01T00:00:00.000000Z',
      data_interval_end: '2026-01-02T00:00:00.000000Z',
      batch_export: made.id,
    });
  });

  it('keeps at most 10 runs, newest first', async () => {
    const { body: made } = await call(api, 'POST', `${base}/`, { body: { name: 'Many runs', destination: S3, interval: 'hour' } });
    for (let day = 1; day <= 12; day++) {
      const d = String(day).padStart(2, '0');
      await call(api, 'POST', `${base}/${made.id}/backfill/`, {
        body: { start_at: `2026-03-${d}T00:00:00Z`, end_at: `2026-03-${d}T01:00:00Z` },
      });
    }
    const { body } = await call(api, 'GET', `${base}/${made.id}/`);
    expect(body.latest_runs).toHaveLength(10);
    expect(body.latest_runs[0].data_interval_start).toBe('2026-03-12T00:00:00.000000Z');
  });

  it('rejects a backfill whose start is not before its end, or that lacks a bound', async () => {
    const id = api.store.batchExportsOf(demoOrgs(api).hedgehog.id)[0]!.id;
    const reversed = await call(api, 'POST', `${base}/${id}/backfill/`, {
      body: { start_at: '2026-01-02T00:00:00Z', end_at: '2026-01-01T00:00:00Z' },
    });
    expect(reversed.status).toBe(400);
    expect(reversed.body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: "The initial backfill datetime 'start_at' happens after 'end_at'",
      attr: null,
    });
    expect((await call(api, 'POST', `${base}/${id}/backfill/`, { body: { start_at: '2026-01-01T00:00:00Z' } })).body).toMatchObject({
      code: 'required',
      attr: 'end_at',
    });
  });

  it('needs batch_export scopes (write grants read), and 404s unknown exports', async () => {
    const denied = await call(api, 'GET', `${base}/`, { key: 'organizationRead' });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toBe("API key missing required scope 'batch_export:read'");
    expect((await call(api, 'POST', `${base}/${UNKNOWN_UUID}/pause/`, { key: 'readOnly' })).status).toBe(403);
    expect((await call(api, 'GET', `${base}/?limit=1`, { key: 'batchExportWrite' })).status).toBe(200);
    expect((await call(api, 'GET', `${base}/${UNKNOWN_UUID}/`)).status).toBe(404);
    expect((await call(api, 'POST', `${base}/${UNKNOWN_UUID}/pause/`)).status).toBe(404);
    const otherOrgExport = api.store.batchExportsOf(demoOrgs(api).prickly.id)[0]!.id;
    expect((await call(api, 'GET', `${base}/${otherOrgExport}/`)).status).toBe(404);
  });
});
