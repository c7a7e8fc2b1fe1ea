import type { MemberRecord } from '../loaders/tagged-records.ts';
import { registerNode, scanCall } from './node-registry.ts';
import { nodeType } from './node-type.ts';
import { MemberRef, UserRef } from './refs.ts';
import { restFields } from './rest-fields.ts';
import { connectionTypes } from './rest-list-fields.ts';
import { requiresScope } from './scopes.ts';

const READ = requiresScope('organization_member:read');

nodeType(MemberRef, {
  description: `A member of the organization. ${READ}`,
  // The id carries the user's uuid too: REST addresses a member by it (PATCH/DELETE .../members/:user__uuid).
  idParts: (m) => [m.$org, m.id, m.user?.uuid ?? ''],
  fields: (t) => ({
    databaseId: t.field({ type: 'UUID', nullable: false, description: 'The REST `id` of the membership.', resolve: (m) => m.id }),
    ...restFields<MemberRecord>(t, {
      level: ['level', 'Int', 'Level in the organization: 1 member, 8 admin, 15 owner.'],
      joinedAt: ['joined_at', 'DateTime', 'When the user joined.'],
      updatedAt: ['updated_at', 'DateTime', 'When the membership was last changed.'],
      is2faEnabled: ['is_2fa_enabled', 'Boolean', 'Whether the user has two-factor authentication on.'],
      hasSocialAuth: ['has_social_auth', 'Boolean', 'Whether the user logs in through a social provider.'],
      lastLogin: ['last_login', 'DateTime', 'When the user last logged in.'],
      searchMatchType: ['search_match_type', 'String', 'How a member search matched: `exact` or `similar` (null outside a search).'],
    }),
    user: t.expose('user', { type: UserRef, description: 'The member.' }),
  }),
});

// Members have no REST retrieve: a lookup pages through the organization's list (a bounded scan).
registerNode('Member', {
  shape: ['uuid', 'uuid', 'uuid'],
  call: ([orgId]) => scanCall('members', orgId as string),
  load: ([orgId, id], context) => context.loaders.members.byId(orgId as string, id as string),
});

export const MemberConnection = connectionTypes(MemberRef, { connection: 'MemberConnection', edge: 'MemberEdge', what: 'members' });
