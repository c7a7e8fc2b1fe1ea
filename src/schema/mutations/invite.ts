// createInvite, deleteInvite and bulkCreateInvites (seed 4.4). Invites have no REST retrieve or
// update. Bulk: the live service answers every invite (201, a JSON array); the seed answers only
// one, so the organization's invites are then read again and the new ones picked by e-mail.

import { MAX_PAGE_SIZE } from '../../loaders/page-size.ts';
import type { InviteRecord } from '../../loaders/tagged-records.ts';
import type { RestClient } from '../../upstream/client.ts';
import type { Invite } from '../../wire/rest-types.ts';
import { globalIdInput } from '../argument-checks.ts';
import { builder } from '../builder.ts';
import { inputIdParts } from '../node-registry.ts';
import { InviteRef } from '../refs.ts';
import { type RestInputTable, restBody, restInputFields } from '../rest-fields.ts';
import { defineMutation } from './define.ts';
import { createMutation, deleteMutation, type RecordKind } from './record-mutations.ts';

const INVITE: RecordKind<Invite, InviteRecord> = {
  ref: InviteRef,
  field: 'invite',
  noun: 'invite',
  scope: 'organization_member:write',
  parent: { typeName: 'Organization', inputField: 'organizationId', noun: 'organization' },
  loader: (context) => context.loaders.invites,
};

const FIELDS: RestInputTable = {
  targetEmail: ['target_email', 'EmailAddress', 'Who to invite (the minimal create example gives only this).'],
  firstName: ['first_name', 'String', "The invitee's first name."],
  level: ['level', 'Int', 'The level the invitee gets: 1 member, 8 admin, 15 owner (at most your own).'],
  message: ['message', 'String', 'Personal message sent with the invitation.'],
  privateProjectAccess: [
    'private_project_access',
    'JSON',
    'Private projects the invitee gets access to, e.g. `[{"id": 1, "level": "member"}]`.',
  ],
};

createMutation(INVITE, {
  names: ['createInvite', 'CreateInviteInput', 'CreateInvitePayload', 'CreateInviteResult'],
  description: 'Invites someone to an organization (replacing an earlier invitation of the same e-mail).',
  fields: FIELDS,
  send: (rest, orgId, body) => rest.createInvite(orgId, body),
});

deleteMutation(INVITE, {
  names: ['deleteInvite', 'DeleteInviteInput', 'DeleteInvitePayload', 'DeleteInviteResult'],
  description: 'Withdraws an invitation.',
  send: (rest, at) => rest.deleteInvite(at.parentId, at.pathId),
});

const InviteInput = builder.inputType('InviteInput', {
  description: 'One invitation of `bulkCreateInvites`.',
  fields: (t) => restInputFields(t, FIELDS),
});

defineMutation(['bulkCreateInvites', 'BulkCreateInvitesInput', 'BulkCreateInvitesPayload', 'BulkCreateInvitesResult'], {
  description:
    "Invites several people at once (sent as one JSON array; the upstream creates all or none). When the upstream's answer holds fewer invites than were sent, the organization's invites are read again (`organization_member:read`, which the write scope implies).",
  scope: INVITE.scope,
  notFound: 'No organization with this id exists for this key.',
  inputFields: (t) => ({
    organizationId: globalIdInput(t, 'Organization', 'The global id of the organization to invite to.'),
    invites: t.field({ type: [InviteInput], required: true, description: 'The invitations, in order.' }),
  }),
  resolve: async (input, context) => {
    const [orgId] = inputIdParts(input.organizationId, 'organizationId', 'Organization') as [string];
    const rest = context.rest();
    const bodies = input.invites.map((invite) => restBody(invite, FIELDS));
    const answer = await rest.bulkCreateInvites(orgId, bodies);
    const created = Array.isArray(answer) ? answer : bodies.length === 1 ? [answer] : await newestByEmail(rest, orgId, bodies);
    const loader = INVITE.loader(context);
    return { invites: created.map((invite) => loader.replace(orgId, invite)) };
  },
  payloadDescription: 'The invites `bulkCreateInvites` created.',
  outputFields: (t) => ({
    invites: t.field({
      type: [InviteRef],
      nullable: false,
      description: 'The new invites, in the order they were given (one per e-mail address).',
      resolve: (payload) => payload.invites,
    }),
  }),
});

/** The organization's newest invite for each e-mail sent, in the order sent. */
async function newestByEmail(rest: RestClient, orgId: string, bodies: Record<string, unknown>[]): Promise<Invite[]> {
  const newest = new Map<string, Invite>();
  for (const invite of await allInvites(rest, orgId)) {
    // An invite without an e-mail (an upstream null) cannot be one of those sent.
    if (typeof invite.target_email !== 'string') continue;
    const email = invite.target_email.toLowerCase();
    const seen = newest.get(email);
    if (!seen || invite.created_at >= seen.created_at) newest.set(email, invite);
  }
  const emails = new Set(bodies.map((body) => String(body.target_email).toLowerCase()));
  return [...emails].flatMap((email) => newest.get(email) ?? []);
}

/** Every page of the list, advancing by what each page returned (a capped upstream returns fewer). */
async function allInvites(rest: RestClient, orgId: string): Promise<Invite[]> {
  const all: Invite[] = [];
  for (;;) {
    const page = await rest.listInvites(orgId, { limit: MAX_PAGE_SIZE, offset: all.length });
    all.push(...page.results);
    if (page.results.length === 0 || all.length >= page.count) return all;
  }
}
