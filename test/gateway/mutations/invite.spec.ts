// Invite mutations: createInvite, deleteInvite, bulkCreateInvites. The seed's bulk answer is ONE
// invite, so with several the gateway reads the organization's invites again; the live answer is
// the array of all of them.
import { describe, expect, it } from 'vitest';
import type { ReferenceApi } from '../../../src/reference-api/index.ts';
import { useHarness } from '../../support/harness.ts';
import { UNKNOWN_UUID } from '../../support/ids.ts';
import { deleteCase, describeMutations, freshOrg, globalId, type MutationCase, mutate, orgId, SHAPES, unique } from './support.ts';

const SELECTION = 'invite { id databaseId targetEmail firstName level message createdBy { email } }';
const BULK_SELECTION = 'invites { id databaseId targetEmail firstName level }';

const email = () => `${unique('invitee')}@scratch.example`;

function freshInvite(api: ReferenceApi) {
  const org = freshOrg(api);
  const record = api.store.addInvite(org.id, { target_email: email() });
  return { org, record, id: globalId('Invite', org.id, record.id), path: `/api/organizations/${org.id}/invites/${record.id}/` };
}

const cases: MutationCase[] = [
  {
    name: 'createInvite',
    selection: SELECTION,
    scope: 'organization_member:write',
    arrange: (h) => {
      const org = freshOrg(h.api);
      const targetEmail = email();
      return {
        input: { organizationId: orgId(org), targetEmail, firstName: 'Nia', level: 8, message: null },
        method: 'POST',
        path: `/api/organizations/${org.id}/invites/`,
        body: { target_email: targetEmail, first_name: 'Nia', level: 8, message: null },
        check: ({ invite }) => {
          expect(invite).toMatchObject({
            targetEmail,
            firstName: 'Nia',
            level: 8,
            message: null,
            createdBy: { email: 'demo@example.com' },
          });
          expect(invite.id).toBe(globalId('Invite', org.id, invite.databaseId));
          expect(h.api.store.invites.get(invite.databaseId)?.target_email).toBe(targetEmail);
        },
      };
    },
    invalid: (h) => ({
      input: { organizationId: orgId(freshOrg(h.api)), targetEmail: email(), level: 3 },
      field: 'level',
      code: 'invalid_choice',
    }),
    missing: () => ({ organizationId: globalId('Organization', UNKNOWN_UUID), targetEmail: email() }),
    wrongType: () => ({ organizationId: globalId('Project', '1'), targetEmail: email() }),
  },
  deleteCase(
    'deleteInvite',
    'organization_member:write',
    (h) => {
      const { record, id, path } = freshInvite(h.api);
      return { id, path, exists: () => h.api.store.invites.has(record.id) };
    },
    {
      missing: (h) => ({ id: globalId('Invite', freshOrg(h.api).id, UNKNOWN_UUID) }),
      wrongType: (h) => ({ id: globalId('Member', freshOrg(h.api).id, UNKNOWN_UUID, UNKNOWN_UUID) }),
    },
  ),
  {
    name: 'bulkCreateInvites',
    selection: BULK_SELECTION,
    scope: 'organization_member:write',
    arrange: (h, live) => {
      const org = freshOrg(h.api);
      const [first, second] = [email(), email()];
      return {
        input: {
          organizationId: orgId(org),
          invites: [
            { targetEmail: first, firstName: 'Ann' },
            { targetEmail: second, level: 8 },
          ],
        },
        method: 'POST',
        path: `/api/organizations/${org.id}/invites/bulk/`,
        // One JSON array, each invite with only the fields given.
        body: [
          { target_email: first, first_name: 'Ann' },
          { target_email: second, level: 8 },
        ],
        check: ({ invites }) => {
          expect(invites).toMatchObject([
            { targetEmail: first, firstName: 'Ann', level: 1 },
            { targetEmail: second, firstName: '', level: 8 },
          ]);
          for (const invite of invites) expect(invite.id).toBe(globalId('Invite', org.id, invite.databaseId));
          const routes = h.api.requests.map((r) => `${r.method} ${r.path}`);
          const bulk = `POST /api/organizations/${org.id}/invites/bulk/`;
          // The seed's answer holds only the first invite: the list is read to find both.
          expect(routes).toEqual(live ? [bulk] : [bulk, `GET /api/organizations/${org.id}/invites/`]);
        },
      };
    },
    invalid: (h) => ({
      input: { organizationId: orgId(freshOrg(h.api)), invites: [{ targetEmail: email() }, { targetEmail: email(), level: 3 }] },
      field: 'level',
      code: 'invalid_choice',
    }),
    missing: () => ({ organizationId: globalId('Organization', UNKNOWN_UUID), invites: [{ targetEmail: email() }] }),
    wrongType: (h) => ({ organizationId: freshInvite(h.api).id, invites: [] }),
  },
];

describeMutations(cases);

describe.each(SHAPES)('bulkCreateInvites ($shape)', ({ liveShapes }) => {
  const harness = useHarness({ liveShapes });

  it('answers one invite with one call, whatever the shape', async () => {
    const h = harness();
    const org = freshOrg(h.api);
    const targetEmail = email();
    const run = await mutate(
      h,
      'bulkCreateInvites',
      { organizationId: orgId(org), invites: [{ targetEmail }] },
      { selection: BULK_SELECTION },
    );
    expect(run.result.invites).toMatchObject([{ targetEmail }]);
    expect(run.calls).toHaveLength(1);
  });

  it('picks only the new invites, newest per e-mail, when it reads the list again', async () => {
    const h = harness();
    const org = freshOrg(h.api);
    const older = h.api.store.addInvite(org.id, { target_email: 'already@scratch.example', created_at: '2026-01-01T00:00:00.000000Z' });
    const [again, fresh] = ['Already@Scratch.example', email()];
    const run = await mutate(
      h,
      'bulkCreateInvites',
      { organizationId: orgId(org), invites: [{ targetEmail: fresh }, { targetEmail: again, firstName: 'Re' }] },
      { selection: BULK_SELECTION },
    );
    expect(run.errors).toBeUndefined();
    // The upstream replaced the older invite of the same address; the payload has the new one.
    expect(run.result.invites).toMatchObject([{ targetEmail: fresh }, { targetEmail: 'Already@scratch.example', firstName: 'Re' }]);
    expect(run.result.invites.map((i: { databaseId: string }) => i.databaseId)).not.toContain(older.id);
    expect(h.api.store.invitesOf(org.id)).toHaveLength(2);
  });

  it('sends the whole list in one call and creates none when one is invalid', async () => {
    const h = harness();
    const org = freshOrg(h.api);
    const run = await mutate(
      h,
      'bulkCreateInvites',
      { organizationId: orgId(org), invites: [{ targetEmail: email() }, { targetEmail: 'bob@hedgehog.example', level: 3 }] },
      { selection: BULK_SELECTION },
    );
    expect(run.result.__typename).toBe('ValidationError');
    expect(run.calls).toHaveLength(1);
    expect(h.api.store.invitesOf(org.id)).toEqual([]);
  });
});
