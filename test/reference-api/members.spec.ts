import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { UNKNOWN_UUID } from '../support/ids.ts';
import { call, demoOrgs, userUuid } from './support.ts';

let api: ReferenceApi;
let base: string;
beforeAll(async () => {
  api = await startReferenceApi();
  base = `/api/organizations/${demoOrgs(api).hedgehog.id}/members`;
});
afterAll(() => api.close());

describe('members', () => {
  it('lists members at levels 15, 8 and 1 with embedded users', async () => {
    const { body } = await call(api, 'GET', `${base}/`);
    expect(body.results.map((m: any) => [m.user.email, m.level])).toEqual([
      ['demo@example.com', 15],
      ['alice@hedgehog.example', 8],
      ['bob@hedgehog.example', 1],
    ]);
    expect(Object.keys(body.results[0]).sort()).toEqual(
      ['id', 'user', 'level', 'joined_at', 'updated_at', 'is_2fa_enabled', 'has_social_auth', 'last_login', 'search_match_type'].sort(),
    );
    expect(body.results.map((m: any) => m.last_login)).toEqual(['2026-03-02T08:15:00Z', '2026-03-01T17:40:00Z', null]);
  });

  it("updates a member's level by user uuid, and rejects levels other than 1, 8, 15", async () => {
    const bob = userUuid(api, 3);
    const patched = await call(api, 'PATCH', `${base}/${bob}/`, { body: { level: 8 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ level: 8, user: { uuid: bob } });
    const bad = await call(api, 'PATCH', `${base}/${bob}`, { body: { level: 3 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ type: 'validation_error', code: 'invalid_choice', detail: '"3" is not a valid choice.', attr: 'level' });
    await call(api, 'PATCH', `${base}/${bob}/`, { body: { level: 1 } });
  });

  it("forbids changing one's own level and removing the owner", async () => {
    const me = userUuid(api, 1);
    expect((await call(api, 'PATCH', `${base}/${me}/`, { body: { level: 8 } })).status).toBe(403);
    const owner = await call(api, 'DELETE', `${base}/${me}/`);
    expect(owner.status).toBe(403);
    expect(owner.body.code).toBe('permission_denied');
  });

  it('lets a member-level user do neither to others', async () => {
    expect((await call(api, 'PATCH', `${base}/${userUuid(api, 2)}/`, { key: 'member', body: { level: 1 } })).status).toBe(403);
  });

  it('removes a member; unknown uuids and users of other organizations are 404', async () => {
    const { prickly } = demoOrgs(api);
    const dave = userUuid(api, 5);
    expect((await call(api, 'DELETE', `${base}/${dave}/`)).status).toBe(404); // Dave is in Prickly Labs, not here
    expect((await call(api, 'PATCH', `${base}/${UNKNOWN_UUID}/`, { body: { level: 1 } })).status).toBe(404);
    expect((await call(api, 'DELETE', `/api/organizations/${prickly.id}/members/${dave}/`)).status).toBe(204);
    expect(api.store.membersOf(prickly.id).map((m) => m.user_id)).toEqual([4, 1]);
  });

  it('needs organization_member scopes', async () => {
    expect((await call(api, 'PATCH', `${base}/${userUuid(api, 3)}/`, { key: 'readOnly', body: { level: 1 } })).body.detail).toBe(
      "API key missing required scope 'organization_member:write'",
    );
    expect((await call(api, 'POST', `${base}/`, { body: {} })).status).toBe(405);
  });
});
