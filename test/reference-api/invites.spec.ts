import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { UNKNOWN_UUID } from '../support/ids.ts';
import { call, demoOrgs } from './support.ts';

let api: ReferenceApi;
let base: string;
beforeAll(async () => {
  api = await startReferenceApi();
  base = `/api/organizations/${demoOrgs(api).hedgehog.id}/invites`;
});
afterAll(() => api.close());

describe('invites', () => {
  it('lists invites with their creator; the one older than 3 days is expired', async () => {
    const { body } = await call(api, 'GET', `${base}/`);
    expect(body.results.map((i: any) => [i.target_email, i.is_expired])).toEqual([
      ['late@hedgehog.example', true],
      ['newbie@hedgehog.example', false],
      ['lead@hedgehog.example', false],
    ]);
    expect(body.results[0].created_by).toMatchObject({ id: 1, email: 'demo@example.com' });
    expect(Object.keys(body.results[0].created_by).sort()).toEqual(
      [
        'id',
        'uuid',
        'distinct_id',
        'first_name',
        'last_name',
        'email',
        'is_email_verified',
        'hedgehog_config',
        'role_at_organization',
      ].sort(),
    );
    expect(body.results[0].created_by.role_at_organization).toBe('engineering');
    expect(body.results[0].private_project_access).toEqual([]);
  });

  it('creates an invite, replacing an earlier one for the same e-mail, and deletes it', async () => {
    const first = await call(api, 'POST', `${base}/`, { body: { target_email: 'new@Hedgehog.EXAMPLE', first_name: 'Ned' } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      target_email: 'new@hedgehog.example',
      level: 1,
      is_expired: false,
      emailing_attempt_made: false,
      created_by: { id: 1 },
    });
    const second = await call(api, 'POST', `${base}/`, { body: { target_email: 'new@hedgehog.example', level: 8, message: 'Hi' } });
    const emails = (await call(api, 'GET', `${base}/`)).body.results.filter((i: any) => i.target_email === 'new@hedgehog.example');
    expect(emails.map((i: any) => i.id)).toEqual([second.body.id]);
    expect((await call(api, 'DELETE', `${base}/${second.body.id}/`)).status).toBe(204);
    expect(api.store.invites.has(second.body.id)).toBe(false);
    expect((await call(api, 'DELETE', `${base}/${second.body.id}/`)).status).toBe(404);
  });

  it('expires an invite 3 days after it was created', async () => {
    const { body } = await call(api, 'POST', `${base}/`, { body: { target_email: 'clock@hedgehog.example' } });
    const realNow = api.settings.now;
    api.settings.now = () => new Date(Date.now() + 3 * 24 * 3600 * 1000 + 60_000);
    try {
      const list = await call(api, 'GET', `${base}/`);
      expect(list.body.results.find((i: any) => i.id === body.id).is_expired).toBe(true);
    } finally {
      api.settings.now = realNow;
    }
  });

  it('validates e-mail, level and existing membership', async () => {
    expect((await call(api, 'POST', `${base}/`, { body: {} })).body).toMatchObject({ code: 'required', attr: 'target_email' });
    expect((await call(api, 'POST', `${base}/`, { body: { target_email: 'not-an-email' } })).body).toEqual({
      type: 'validation_error',
      code: 'invalid_input',
      detail: 'Enter a valid email address.',
      attr: 'target_email',
    });
    expect((await call(api, 'POST', `${base}/`, { body: { target_email: 'a@b.example', level: 5 } })).body).toMatchObject({
      code: 'invalid_choice',
      attr: 'level',
    });
    expect((await call(api, 'POST', `${base}/`, { body: { target_email: 'bob@hedgehog.example' } })).status).toBe(400);
  });

  it('bulk-creates atomically and answers with the first invite (seed shape)', async () => {
    const before = api.store.invites.size;
    const bad = await call(api, 'POST', `${base}/bulk/`, { body: [{ target_email: 'b1@hedgehog.example' }, { target_email: 'nope' }] });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ type: 'validation_error', attr: 'target_email' });
    expect(api.store.invites.size).toBe(before);
    const good = await call(api, 'POST', `${base}/bulk/`, {
      body: [{ target_email: 'b1@hedgehog.example' }, { target_email: 'b2@hedgehog.example', level: 8 }],
    });
    expect(good.status).toBe(200);
    expect(good.body).toMatchObject({ target_email: 'b1@hedgehog.example', level: 1 });
    expect(api.store.invites.size).toBe(before + 2);
  });

  it('rejects a bulk body that is not an array, or has more than 20 invites', async () => {
    expect((await call(api, 'POST', `${base}/bulk`, { body: { target_email: 'x@y.example' } })).body).toMatchObject({
      code: 'invalid_input',
      attr: null,
    });
    const many = Array.from({ length: 21 }, (_, i) => ({ target_email: `m${i}@hedgehog.example` }));
    expect((await call(api, 'POST', `${base}/bulk/`, { body: many })).body).toEqual({
      type: 'validation_error',
      code: 'max_length',
      detail: 'A maximum of 20 invites can be sent in a single request.',
      attr: null,
    });
  });

  it('needs organization_member scopes; has no retrieve', async () => {
    expect((await call(api, 'GET', `${base}/`, { key: 'organizationRead' })).body.detail).toBe(
      "API key missing required scope 'organization_member:read'",
    );
    expect((await call(api, 'POST', `${base}/bulk/`, { key: 'readOnly', body: [] })).status).toBe(403);
    expect((await call(api, 'GET', `${base}/${UNKNOWN_UUID}/`)).status).toBe(405);
  });
});
