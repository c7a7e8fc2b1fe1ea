// Member mutations: updateMember and removeMember. REST addresses a member by its user's uuid,
// which the Member global id carries.
import { expect } from 'vitest';
import type { ReferenceApi } from '../../../src/reference-api/index.ts';
import type { Harness } from '../../support/harness.ts';
import { UNKNOWN_UUID } from '../../support/ids.ts';
import { deleteCase, describeMutations, freshOrg, globalId, type MutationCase, unique } from './support.ts';

function freshMember(api: ReferenceApi) {
  const org = freshOrg(api);
  const user = api.store.addUser({ email: `${unique('member')}@scratch.example`, first_name: 'Mo' });
  const membership = api.store.addMembership(org.id, user.id, 1);
  return {
    org,
    user,
    membership,
    id: globalId('Member', org.id, membership.id, user.uuid),
    path: `/api/organizations/${org.id}/members/${user.uuid}/`,
  };
}

const missingMember = (h: Harness) => ({ id: globalId('Member', freshOrg(h.api).id, UNKNOWN_UUID, UNKNOWN_UUID) });
const wrongType = (h: Harness) => ({ id: globalId('Invite', freshOrg(h.api).id, UNKNOWN_UUID) });

const cases: MutationCase[] = [
  {
    name: 'updateMember',
    selection: 'member { id databaseId level user { uuid email } }',
    scope: 'organization_member:write',
    arrange: (h) => {
      const { membership, user, id, path } = freshMember(h.api);
      return {
        input: { id, level: 8 },
        method: 'PATCH',
        path,
        body: { level: 8 },
        check: ({ member }) => {
          expect(member).toEqual({ id, databaseId: membership.id, level: 8, user: { uuid: user.uuid, email: user.email } });
          expect(membership.level).toBe(8);
        },
      };
    },
    invalid: (h) => ({ input: { id: freshMember(h.api).id, level: 3 }, field: 'level', code: 'invalid_choice' }),
    missing: missingMember,
    wrongType,
    patch: { value: ['level', 8, 'level'], nulled: ['level', 'level'] },
  },
  deleteCase(
    'removeMember',
    'organization_member:write',
    (h) => {
      const { membership, id, path } = freshMember(h.api);
      return { id, path, exists: () => h.api.store.memberships.has(membership.id) };
    },
    { missing: missingMember, wrongType },
  ),
];

describeMutations(cases);
