import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { UNKNOWN_UUID } from '../support/ids.ts';
import { call } from './support.ts';

let api: ReferenceApi;
const web = '/api/projects/1/surveys';
beforeAll(async () => {
  api = await startReferenceApi();
});
afterAll(() => api.close());

const QUESTIONS = [{ type: 'open', question: 'Why?' }];

describe('surveys', () => {
  it("lists a project's surveys with embedded flags and creators", async () => {
    const { status, body } = await call(api, 'GET', `${web}/`);
    expect(status).toBe(200);
    expect(body.results.map((s: any) => s.name)).toEqual(['Net Promoter Score', 'Feature feedback', 'Old onboarding survey']);
    const nps = body.results[0];
    expect(nps.linked_flag).toMatchObject({ key: 'beta-dashboards', team_id: 1 });
    expect(nps.targeting_flag.key).toBe('survey-targeting-4f1c2a9e7b');
    expect(nps.internal_targeting_flag.key).toBe('survey-targeting-4f1c2a9e7b-custom');
    expect(nps.created_by).toMatchObject({ id: 1, email: 'demo@example.com' });
    expect(Object.keys(nps.linked_flag).sort()).toEqual(
      [
        'id',
        'team_id',
        'name',
        'key',
        'filters',
        'deleted',
        'active',
        'ensure_experience_continuity',
        'has_encrypted_payloads',
        'version',
        'evaluation_runtime',
        'bucketing_identifier',
        'evaluation_tags',
      ].sort(),
    );
    expect(nps.linked_flag).toMatchObject({ version: 3, evaluation_tags: ['web', 'beta'], evaluation_runtime: 'client' });
    expect(nps).toMatchObject({ schedule: 'recurring', response_sampling_interval_type: 'month', enable_partial_responses: true });
    expect(nps.feature_flag_keys).toContainEqual({ key: 'linked_flag_key', value: 'beta-dashboards' });
    expect(nps).not.toHaveProperty('targeting_flag_filters');
    expect((await call(api, 'GET', '/api/projects/2/surveys/')).body.count).toBe(2);
  });

  it('creates (with a targeting flag), retrieves, updates (removing it) and deletes', async () => {
    const filters = {
      groups: [{ properties: [{ key: 'email', value: 'x', operator: 'exact', type: 'person' }], rollout_percentage: 100 }],
    };
    const made = await call(api, 'POST', `${web}/`, {
      body: { name: 'CRUD survey', type: 'popover', questions: QUESTIONS, linked_flag_id: 1, targeting_flag_filters: filters },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: 'CRUD survey',
      linked_flag_id: 1,
      linked_flag: { id: 1 },
      targeting_flag_filters: filters,
      remove_targeting_flag: false,
      created_by: { id: 1 },
    });
    expect(made.body.targeting_flag_id).toBe(made.body.targeting_flag.id);
    const flagId = made.body.targeting_flag_id;
    const fetched = await call(api, 'GET', `${web}/${made.body.id}`);
    expect(fetched.body.targeting_flag.id).toBe(flagId);
    const patched = await call(api, 'PATCH', `${web}/${made.body.id}/`, {
      body: { remove_targeting_flag: true, archived: true, responses_limit: 10 },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ targeting_flag: null, targeting_flag_id: null, archived: true, responses_limit: 10 });
    expect(api.store.featureFlags.get(flagId)?.deleted).toBe(true);
    expect((await call(api, 'DELETE', `${web}/${made.body.id}/`)).status).toBe(204);
    expect((await call(api, 'GET', `${web}/${made.body.id}/`)).status).toBe(404);
  });

  it('gives a launched survey an internal targeting flag', async () => {
    const { body } = await call(api, 'POST', `${web}/`, { body: { name: 'Launched', type: 'widget', start_date: '2026-05-01T00:00:00Z' } });
    expect(body.internal_targeting_flag.key).toMatch(/^survey-targeting-[0-9a-f]{10}-custom$/);
  });

  it('validates name (required, unique per project, max 400), type, linked flag and integer ranges', async () => {
    expect((await call(api, 'POST', `${web}/`, { body: { type: 'popover' } })).body).toMatchObject({ code: 'required', attr: 'name' });
    expect((await call(api, 'POST', `${web}/`, { body: { name: 'No type' } })).body).toMatchObject({ code: 'required', attr: 'type' });
    expect((await call(api, 'POST', `${web}/`, { body: { name: 'Feature feedback', type: 'popover' } })).body).toEqual({
      type: 'validation_error',
      code: 'unique',
      detail: 'There is already another survey with this name.',
      attr: 'name',
    });
    // Unique per project only: the same name is fine in project 2.
    expect((await call(api, 'POST', '/api/projects/2/surveys/', { body: { name: 'Feature feedback', type: 'popover' } })).status).toBe(201);
    expect((await call(api, 'POST', `${web}/`, { body: { name: 'x'.repeat(401), type: 'popover' } })).body).toMatchObject({
      code: 'max_length',
      attr: 'name',
    });
    expect((await call(api, 'POST', `${web}/`, { body: { name: 'T', type: 'modal' } })).body).toMatchObject({
      code: 'invalid_choice',
      attr: 'type',
    });
    const mobileFlag = [...api.store.featureFlags.values()].find((f) => f.key === 'mobile-rating-prompt')!;
    expect(mobileFlag.team_id).toBe(2); // a flag of another project does not count
    expect((await call(api, 'POST', `${web}/`, { body: { name: 'L', type: 'popover', linked_flag_id: mobileFlag.id } })).body).toEqual({
      type: 'validation_error',
      code: 'does_not_exist',
      detail: `Invalid pk "${mobileFlag.id}" - object does not exist.`,
      attr: 'linked_flag_id',
    });
    expect((await call(api, 'POST', `${web}/`, { body: { name: 'R', type: 'popover', responses_limit: 2147483648 } })).body).toMatchObject({
      code: 'max_value',
      attr: 'responses_limit',
    });
    expect(
      (await call(api, 'POST', `${web}/`, { body: { name: 'Q', type: 'popover', questions: [{ type: 'open' }] } })).body,
    ).toMatchObject({ code: 'invalid_input', attr: 'questions' });
    expect(
      (
        await call(api, 'POST', `${web}/`, {
          body: { name: 'D', type: 'popover', iteration_start_dates: ['2026-01-01T00:00:00Z', 'soon'] },
        })
      ).body,
    ).toMatchObject({
      code: 'invalid_input',
      attr: 'iteration_start_dates__1',
    });
  });

  it('answers responses_count in the Survey shape, carrying the counts', async () => {
    const { status, body } = await call(api, 'GET', `${web}/responses_count/`);
    expect(status).toBe(200);
    const nps = [...api.store.surveys.values()].find((s) => s.name === 'Net Promoter Score')!;
    expect(body[nps.id]).toBe(42);
    expect(body).toHaveProperty('name', null);
    expect(body).toHaveProperty('questions', null);
  });

  it('404s projects the caller is not in, unknown projects and unknown surveys; needs survey scopes', async () => {
    expect((await call(api, 'GET', '/api/projects/4/surveys/')).status).toBe(404); // the outsider's project
    expect((await call(api, 'GET', '/api/projects/4/surveys/', { key: 'outsider' })).body.count).toBe(1);
    expect((await call(api, 'GET', '/api/projects/999/surveys/')).status).toBe(404);
    expect((await call(api, 'GET', '/api/projects/abc/surveys/')).status).toBe(404);
    expect((await call(api, 'GET', `${web}/${UNKNOWN_UUID}/`)).status).toBe(404);
    expect((await call(api, 'GET', `${web}/`, { key: 'organizationRead' })).body.detail).toBe(
      "API key missing required scope 'survey:read'",
    );
    expect((await call(api, 'GET', `${web}/responses_count/`, { key: 'organizationRead' })).status).toBe(403);
  });
});
