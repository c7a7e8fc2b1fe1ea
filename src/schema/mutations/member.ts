// updateMember and removeMember (seed 4.5). REST addresses a member by its user's uuid, which the
// Member global id carries as its third part.
import type { MemberRecord } from '../../loaders/tagged-records.ts';
import type { Member } from '../../wire/rest-types.ts';
import { MemberRef } from '../refs.ts';
import { deleteMutation, type RecordKind, updateMutation } from './record-mutations.ts';

const MEMBER: RecordKind<Member, MemberRecord> = {
  ref: MemberRef,
  field: 'member',
  noun: 'member',
  scope: 'organization_member:write',
  parent: { typeName: 'Organization', inputField: 'organizationId', noun: 'organization' },
  loader: (context) => context.loaders.members,
  address: ([orgId, memberId, userUuid]) => ({ parentId: orgId as string, id: memberId as string, pathId: userUuid as string }),
  // The organization's member count and the caller's own level (an ownership transfer) can change.
  afterWrite: (context, at) => context.loaders.organizations.forget('', at.parentId),
};

updateMutation(MEMBER, {
  names: ['updateMember', 'UpdateMemberInput', 'UpdateMemberPayload', 'UpdateMemberResult'],
  description: "Changes a member's level in the organization.",
  fields: { level: ['level', 'Int', 'The new level: 1 member, 8 admin, 15 owner (making someone owner transfers ownership).'] },
  send: (rest, at, body) => rest.updateMember(at.parentId, at.pathId, body),
});

deleteMutation(MEMBER, {
  names: ['removeMember', 'RemoveMemberInput', 'RemoveMemberPayload', 'RemoveMemberResult'],
  description: 'Removes a member from the organization (or, given your own membership, leaves it).',
  send: (rest, at) => rest.removeMember(at.parentId, at.pathId),
});
