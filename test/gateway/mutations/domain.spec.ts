// Domain mutations: createDomain, updateDomain, deleteDomain, verifyDomain.
import { expect } from 'vitest';
import type { ReferenceApi } from '../../../src/reference-api/index.ts';
import type { Harness } from '../../support/harness.ts';
import { UNKNOWN_UUID } from '../../support/ids.ts';
import { deleteCase, describeMutations, freshOrg, globalId, type MutationCase, orgId, unique } from './support.ts';

const SELECTION = 'domain { id databaseId domain isVerified verifiedAt jitProvisioningEnabled ssoEnforcement scimBaseUrl }';

const domainName = () => `${unique('scratch')}.example`;

function freshDomain(api: ReferenceApi, fields: { verified_at?: string } = {}) {
  const org = freshOrg(api);
  const record = api.store.addDomain(org.id, { domain: domainName(), ...fields });
  return { org, record, id: globalId('Domain', org.id, record.id), path: `/api/organizations/${org.id}/domains/${record.id}/` };
}

const missingDomain = (h: Harness) => ({ id: globalId('Domain', freshOrg(h.api).id, UNKNOWN_UUID) });
const wrongType = (h: Harness) => ({ id: globalId('BatchExport', freshOrg(h.api).id, UNKNOWN_UUID) });

const cases: MutationCase[] = [
  {
    name: 'createDomain',
    selection: SELECTION,
    scope: 'organization:write',
    arrange: (h) => {
      const org = freshOrg(h.api);
      const domain = domainName();
      return {
        input: { organizationId: orgId(org), domain, jitProvisioningEnabled: true },
        method: 'POST',
        path: `/api/organizations/${org.id}/domains/`,
        body: { domain, jit_provisioning_enabled: true },
        check: ({ domain: created }) => {
          expect(created).toMatchObject({ domain, isVerified: false, jitProvisioningEnabled: true });
          expect(created.id).toBe(globalId('Domain', org.id, created.databaseId));
          expect(h.api.store.domains.get(created.databaseId)?.domain).toBe(domain);
        },
      };
    },
    invalid: (h) => ({ input: { organizationId: orgId(freshOrg(h.api)), domain: 'not a domain' }, field: 'domain', code: 'invalid_input' }),
    missing: () => ({ organizationId: globalId('Organization', UNKNOWN_UUID), domain: domainName() }),
    wrongType: (h) => ({ organizationId: freshDomain(h.api).id, domain: domainName() }),
  },
  {
    name: 'updateDomain',
    selection: SELECTION,
    scope: 'organization:write',
    arrange: (h) => {
      const { record, id, path } = freshDomain(h.api);
      return {
        input: { id, ssoEnforcement: 'saml', jitProvisioningEnabled: true },
        method: 'PATCH',
        path,
        body: { sso_enforcement: 'saml', jit_provisioning_enabled: true },
        check: ({ domain }) => {
          expect(domain).toMatchObject({ id, ssoEnforcement: 'saml', jitProvisioningEnabled: true, scimBaseUrl: null });
          expect(record.sso_enforcement).toBe('saml');
        },
      };
    },
    invalid: (h) => ({
      input: { id: freshDomain(h.api).id, ssoEnforcement: 'carrier-pigeon' },
      field: 'ssoEnforcement',
      code: 'invalid_choice',
    }),
    missing: missingDomain,
    wrongType,
    // The deprecated SAML fields are still sent as given (the service ignores them: NotAppliedError).
    patch: { value: ['jitProvisioningEnabled', true, 'jit_provisioning_enabled'], nulled: ['samlEntityId', 'saml_entity_id'] },
  },
  deleteCase(
    'deleteDomain',
    'organization:write',
    (h) => {
      const { record, id, path } = freshDomain(h.api);
      return { id, path, exists: () => h.api.store.domains.has(record.id) };
    },
    { missing: missingDomain, wrongType },
  ),
  {
    name: 'verifyDomain',
    selection: SELECTION,
    scope: 'organization:write',
    arrange: (h) => {
      const { record, id, path } = freshDomain(h.api);
      return {
        input: { id },
        method: 'POST',
        path: `${path}verify/`,
        body: undefined,
        check: ({ domain }) => {
          expect(domain).toMatchObject({ id, isVerified: true, verifiedAt: expect.any(String) });
          expect(record.verified_at).toEqual(expect.any(String));
          // Both shapes answer the domain: no second call.
          expect(h.api.requests).toHaveLength(1);
        },
      };
    },
    invalid: (h) => ({
      input: { id: freshDomain(h.api, { verified_at: '2026-01-01T00:00:00Z' }).id },
      field: null,
      code: 'already_verified',
    }),
    missing: missingDomain,
    wrongType,
  },
];

describeMutations(cases);
