import type { InviteRecord } from '../loaders/tagged-records.ts';
import { registerNode, scanCall } from './node-registry.ts';
import { nodeType } from './node-type.ts';
import { InviteRef, UserRef } from './refs.ts';
import { restFields } from './rest-fields.ts';
import { connectionTypes } from './rest-list-fields.ts';
import { requiresScope } from './scopes.ts';

const READ = requiresScope('organization_member:read');

nodeType(InviteRef, {
  description: `An invitation to join the organization. ${READ}`,
  idParts: (i) => [i.$org, i.id],
  fields: (t) => ({
    databaseId: t.field({ type: 'UUID', nullable: false, description: 'The REST `id`.', resolve: (i) => i.id }),
    ...restFields<InviteRecord>(t, {
      targetEmail: ['target_email', 'EmailAddress', 'Who is invited.'],
      firstName: ['first_name', 'String', "The invitee's first name."],
      emailingAttemptMade: ['emailing_attempt_made', 'Boolean', 'Whether the invitation e-mail was sent.'],
      level: ['level', 'Int', 'The level the invitee gets: 1 member, 8 admin, 15 owner.'],
      isExpired: ['is_expired', 'Boolean', 'Whether the invitation has expired (they last 3 days).'],
      createdAt: ['created_at', 'DateTime', 'When the invitation was made.'],
      updatedAt: ['updated_at', 'DateTime', 'When the invitation was last changed.'],
      message: ['message', 'String', 'Personal message sent with the invitation.'],
      privateProjectAccess: ['private_project_access', 'JSON', 'Private projects the invitee gets access to, with a level each.'],
    }),
    createdBy: t.field({ type: UserRef, description: 'Who made the invitation.', resolve: (i) => i.created_by }),
  }),
});

// Invites have no REST retrieve: a lookup pages through the organization's list (a bounded scan).
registerNode('Invite', {
  shape: ['uuid', 'uuid'],
  call: ([orgId]) => scanCall('invites', orgId as string),
  load: ([orgId, id], context) => context.loaders.invites.byId(orgId as string, id as string),
});

export const InviteConnection = connectionTypes(InviteRef, {
  connection: 'InviteConnection',
  edge: 'InviteEdge',
  what: 'pending invitations',
});
