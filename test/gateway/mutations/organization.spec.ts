// createOrganization, updateOrganization, deleteOrganization against the reference API.
import { expect } from 'vitest';
import { UNKNOWN_UUID } from '../../support/ids.ts';
import { deleteCase, describeMutations, freshOrg, globalId, type MutationCase, orgId, unique } from './support.ts';

const SELECTION = 'organization { id databaseId name isMemberJoinEmailEnabled enforce2fa membershipLevel }';

const cases: MutationCase[] = [
  {
    name: 'createOrganization',
    selection: SELECTION,
    scope: 'organization:write',
    notFound: false,
    arrange: () => {
      const name = unique('Brand new org ');
      return {
        input: { name, enforce2fa: true },
        method: 'POST',
        path: '/api/organizations/',
        body: { name, enforce_2fa: true },
        check: ({ organization }, h) => {
          expect(organization).toMatchObject({ name, enforce2fa: true, membershipLevel: 15 });
          expect(organization.id).toBe(globalId('Organization', organization.databaseId));
          expect(h.api.store.organizations.get(organization.databaseId)?.name).toBe(name);
        },
      };
    },
    invalid: () => ({ input: { name: '' }, field: 'name', code: 'blank' }),
  },
  {
    name: 'updateOrganization',
    selection: SELECTION,
    scope: 'organization:write',
    arrange: (h) => {
      const org = freshOrg(h.api);
      return {
        input: { id: orgId(org), name: 'Renamed org', enforce2fa: null },
        method: 'PATCH',
        path: `/api/organizations/${org.id}/`,
        body: { name: 'Renamed org', enforce_2fa: null },
        check: ({ organization }) => {
          expect(organization).toMatchObject({ id: orgId(org), databaseId: org.id, name: 'Renamed org', enforce2fa: null });
          expect(org.name).toBe('Renamed org');
        },
      };
    },
    invalid: (h) => ({
      input: { id: orgId(freshOrg(h.api)), membersCanUsePersonalApiKeys: null },
      field: 'membersCanUsePersonalApiKeys',
      code: 'null',
    }),
    missing: () => ({ id: globalId('Organization', UNKNOWN_UUID) }),
    wrongType: () => ({ id: globalId('Project', '1') }),
    patch: { value: ['membersCanInvite', false, 'members_can_invite'], nulled: ['enforce2fa', 'enforce_2fa'] },
  },
  deleteCase(
    'deleteOrganization',
    'organization:write',
    (h) => {
      const org = freshOrg(h.api);
      return { id: orgId(org), path: `/api/organizations/${org.id}/`, exists: () => h.api.store.organizations.has(org.id) };
    },
    {
      missing: () => ({ id: globalId('Organization', UNKNOWN_UUID) }),
      wrongType: (h) => ({ id: globalId('Domain', freshOrg(h.api).id, UNKNOWN_UUID) }),
    },
  ),
];

describeMutations(cases);
