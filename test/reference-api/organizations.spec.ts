import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { UNKNOWN_UUID } from '../support/ids.ts';
import { call, demoOrgs } from './support.ts';

let api: ReferenceApi;
beforeAll(async () => {
  api = await startReferenceApi();
});
afterAll(() => api.close());

describe('organizations', () => {
  it("lists the caller's organizations with every seed field and the caller's membership level", async () => {
    const { status, body } = await call(api, 'GET', '/api/organizations/');
    expect(status).toBe(200);
    expect(body.count).toBe(2);
    expect(body.results.map((o: any) => [o.name, o.membership_level])).toEqual([
      ['Hedgehog Analytics', 15],
      ['Prickly Labs', 8],
    ]);
    const org = body.results[0];
    expect(Object.keys(org).sort()).toEqual(
      [
        'id',
        'name',
        'slug',
        'created_at',
        'updated_at',
        'membership_level',
        'plugins_access_level',
        'teams',
        'available_product_features',
        'is_member_join_email_enabled',
        'metadata',
        'customer_id',
        'enforce_2fa',
        'member_count',
        'projects',
        'logo_media_id',
        'default_role_id',
        'enforce_verified_domains',
        'members_can_invite',
        'members_can_create_projects',
        'members_can_use_personal_api_keys',
        'members_can_see_org_members',
        'allow_publicly_shared_resources',
        'read_only_mcp_access',
        'is_ai_data_processing_approved',
        'is_ai_training_opted_in',
        'default_anonymize_ips',
        'is_ai_training_locked',
        'is_ai_training_cta_shown',
        'has_signed_baa',
        'is_active',
        'is_pending_deletion',
        'uses_most_specific_access_resolution',
        'is_not_active_reason',
      ].sort(),
    );
    expect(org).toMatchObject({ slug: 'hedgehog-analytics', created_at: '2026-01-05T10:00:00.000000Z', member_count: '3' });
    expect(typeof org.metadata).toBe('string');
    expect(org.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(org.teams.map((t: any) => [t.id, t.project_id, t.name])).toEqual([
      [1, 1, 'Hedgehog Web'],
      [2, 2, 'Hedgehog Mobile'],
    ]);
    // A project is named as itself, which may differ from its first team's name.
    expect(org.projects).toEqual([
      { id: 1, name: 'Hedgehog' },
      { id: 2, name: 'Hedgehog Mobile' },
    ]);
    expect(org).toMatchObject({ enforce_verified_domains: true, members_can_invite: false, is_active: true, has_signed_baa: true });
    expect(Object.keys(org.teams[0]).sort()).toEqual(
      [
        'id',
        'uuid',
        'organization',
        'project_id',
        'api_token',
        'name',
        'completed_snapshot_onboarding',
        'has_completed_onboarding_for',
        'ingested_event',
        'is_demo',
        'timezone',
        'access_control',
      ].sort(),
    );
  });

  it('creates an organization owned by the caller, with a first project and a unique slug', async () => {
    const first = await call(api, 'POST', '/api/organizations/', {
      body: { name: 'Hedgehog Analytics', enforce_2fa: true, slug: 'ignored', id: 'ignored' },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      name: 'Hedgehog Analytics',
      slug: 'hedgehog-analytics-2',
      membership_level: 15,
      enforce_2fa: true,
      member_count: '1',
    });
    expect(first.body.teams).toHaveLength(1);
    expect(first.body.teams[0]).toMatchObject({ name: 'Default project', organization: first.body.id });
    const fetched = await call(api, 'GET', `/api/organizations/${first.body.id}`);
    expect(fetched.body).toEqual(first.body);
  });

  it('retrieves, updates (ignoring read-only fields) and deletes', async () => {
    const made = await call(api, 'POST', '/api/organizations', { body: { name: 'Short lived' } });
    const id = made.body.id;
    const patched = await call(api, 'PATCH', `/api/organizations/${id}/`, {
      body: {
        name: 'Renamed',
        is_member_join_email_enabled: false,
        slug: 'nope',
        is_active: false,
        unknown_field: 1,
        members_can_invite: false,
        default_role_id: '0190A1B2C3D47E5F8A9B0C1D2E3F4A5B',
      },
    });
    expect(patched.status).toBe(200);
    // is_member_join_email_enabled and is_active are read-only in the live service; unknown fields are ignored.
    expect(patched.body).toMatchObject({
      name: 'Renamed',
      slug: 'short-lived',
      is_member_join_email_enabled: true,
      is_active: true,
      members_can_invite: false,
      default_role_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
    });
    expect(patched.body).not.toHaveProperty('unknown_field');
    expect((await call(api, 'DELETE', `/api/organizations/${id}/`)).status).toBe(204);
    expect((await call(api, 'GET', `/api/organizations/${id}/`)).status).toBe(404);
    expect(api.store.organizations.has(id)).toBe(false);
  });

  it("resolves @current to the caller's first organization", async () => {
    const { body } = await call(api, 'GET', '/api/organizations/@current/');
    expect(body.name).toBe('Hedgehog Analytics');
  });

  it('validates: required name, max length 64, booleans', async () => {
    expect((await call(api, 'POST', '/api/organizations/', { body: {} })).body).toEqual({
      type: 'validation_error',
      code: 'required',
      detail: 'This field is required.',
      attr: 'name',
    });
    expect((await call(api, 'POST', '/api/organizations/', { body: { name: 'x'.repeat(65) } })).body).toMatchObject({
      code: 'max_length',
      attr: 'name',
    });
    const { hedgehog } = demoOrgs(api);
    const bad = await call(api, 'PATCH', `/api/organizations/${hedgehog.id}/`, { body: { enforce_2fa: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Must be a valid boolean.', attr: 'enforce_2fa' });
    expect((await call(api, 'POST', '/api/organizations/', { body: [1] })).body).toMatchObject({ code: 'invalid_input', attr: null });
  });

  it('answers 404 for an organization the caller is not in, and for an unknown or malformed id', async () => {
    const { elsewhere } = demoOrgs(api);
    const notMine = await call(api, 'GET', `/api/organizations/${elsewhere.id}/`);
    expect(notMine.status).toBe(404);
    expect(notMine.body).toEqual({ type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    expect((await call(api, 'GET', `/api/organizations/${UNKNOWN_UUID}/`)).status).toBe(404);
    expect((await call(api, 'GET', '/api/organizations/not-a-uuid/')).status).toBe(404);
    expect((await call(api, 'GET', `/api/organizations/${elsewhere.id}/`, { key: 'outsider' })).status).toBe(200);
  });

  it('needs organization:write to write, admin level to update and owner level to delete', async () => {
    const { hedgehog, prickly } = demoOrgs(api);
    const denied = await call(api, 'PATCH', `/api/organizations/${hedgehog.id}/`, { key: 'readOnly', body: { name: 'x' } });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      type: 'authentication_error',
      code: 'permission_denied',
      detail: "API key missing required scope 'organization:write'",
      attr: null,
    });
    const memberPatch = await call(api, 'PATCH', `/api/organizations/${hedgehog.id}/`, { key: 'member', body: { name: 'x' } });
    expect(memberPatch.status).toBe(403);
    expect(memberPatch.body.detail).toBe('Your organization access level is insufficient.');
    // The demo user is an admin of Prickly Labs: may update, may not delete.
    expect((await call(api, 'PATCH', `/api/organizations/${prickly.id}/`, { body: { enforce_2fa: false } })).status).toBe(200);
    expect((await call(api, 'DELETE', `/api/organizations/${prickly.id}/`)).status).toBe(403);
    expect(api.store.organizations.has(prickly.id)).toBe(true);
  });
});
