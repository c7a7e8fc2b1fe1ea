import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { UNKNOWN_UUID } from '../support/ids.ts';
import { call, demoOrgs } from './support.ts';

let api: ReferenceApi;
let base: string;
beforeAll(async () => {
  api = await startReferenceApi();
  base = `/api/organizations/${demoOrgs(api).hedgehog.id}/domains`;
});
afterAll(() => api.close());

describe('domains', () => {
  it('lists verified and unverified domains, without SAML settings (they live on identity provider configs)', async () => {
    const { body } = await call(api, 'GET', `${base}/`);
    expect(body.results.map((d: any) => [d.domain, d.is_verified, d.scim_base_url])).toEqual([
      ['hedgehog.example', true, 'https://us.posthog.com/scim/v2/hedgehog-example'],
      ['hedgehog-mail.example', false, null],
    ]);
    expect(Object.keys(body.results[0]).sort()).toEqual(
      [
        'id',
        'domain',
        'is_verified',
        'verified_at',
        'verification_challenge',
        'jit_provisioning_enabled',
        'sso_enforcement',
        'scim_base_url',
      ].sort(),
    );
  });

  it('creates, retrieves, updates (ignoring SAML and read-only fields) and deletes', async () => {
    const made = await call(api, 'POST', `${base}/`, { body: { domain: 'crud.example', is_verified: true, saml_entity_id: 'e' } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      domain: 'crud.example',
      is_verified: false,
      verified_at: null,
      sso_enforcement: '',
    });
    expect(made.body).not.toHaveProperty('saml_entity_id');
    const id = made.body.id;
    expect((await call(api, 'GET', `${base}/${id}`)).body).toEqual(made.body);
    const patched = await call(api, 'PATCH', `${base}/${id}/`, {
      body: { saml_acs_url: 'https://acs.example/', saml_x509_cert: 'CERT', scim_base_url: 'x', jit_provisioning_enabled: true },
    });
    expect(patched.body).toMatchObject({ jit_provisioning_enabled: true, scim_base_url: null });
    expect(patched.body).not.toHaveProperty('saml_acs_url');
    expect((await call(api, 'DELETE', `${base}/${id}/`)).status).toBe(204);
    expect((await call(api, 'GET', `${base}/${id}/`)).status).toBe(404);
  });

  it('verifies once when verification passes; a second verify is already_verified', async () => {
    const { body: made } = await call(api, 'POST', `${base}/`, { body: { domain: 'verify.example' } });
    const verified = await call(api, 'POST', `${base}/${made.id}/verify/`);
    expect(verified.status).toBe(200);
    expect(verified.body.is_verified).toBe(true);
    expect(verified.body.verified_at).toMatch(/Z$/);
    const again = await call(api, 'POST', `${base}/${made.id}/verify`);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      type: 'validation_error',
      code: 'already_verified',
      detail: 'This domain has already been verified.',
      attr: null,
    });
  });

  it('leaves the domain unverified when verification is switched to fail', async () => {
    const { body: made } = await call(api, 'POST', `${base}/`, { body: { domain: 'nodns.example' } });
    api.settings.domainVerificationPasses = false;
    try {
      const answer = await call(api, 'POST', `${base}/${made.id}/verify/`);
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ is_verified: false, verified_at: null });
    } finally {
      api.settings.domainVerificationPasses = true;
    }
  });

  it('validates syntax, uniqueness across organizations and sso_enforcement', async () => {
    const syntax = await call(api, 'POST', `${base}/`, { body: { domain: 'https://bad domain' } });
    expect(syntax.body).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr: 'domain' });
    const taken = await call(api, 'POST', `${base}/`, { body: { domain: 'prickly.example' } });
    expect(taken.body).toEqual({
      type: 'validation_error',
      code: 'unique',
      detail: 'organization domain with this domain already exists.',
      attr: 'domain',
    });
    const sso = await call(api, 'POST', `${base}/`, { body: { domain: 'sso.example', sso_enforcement: 'okta' } });
    expect(sso.body).toMatchObject({ code: 'invalid_choice', attr: 'sso_enforcement' });
    expect((await call(api, 'POST', `${base}/`, { body: {} })).body).toMatchObject({ code: 'required', attr: 'domain' });
  });

  it('needs organization scopes and admin level; 404s unknown domains', async () => {
    expect((await call(api, 'POST', `${base}/`, { key: 'readOnly', body: { domain: 'x.example' } })).status).toBe(403);
    expect((await call(api, 'POST', `${base}/`, { key: 'member', body: { domain: 'x.example' } })).status).toBe(403);
    expect((await call(api, 'GET', `${base}/`, { key: 'member' })).status).toBe(200);
    expect((await call(api, 'POST', `${base}/${UNKNOWN_UUID}/verify/`)).status).toBe(404);
  });
});
