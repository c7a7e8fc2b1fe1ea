// createOrganization, updateOrganization, deleteOrganization (seed 4.1).
import type { OrganizationRecord } from '../../loaders/tagged-records.ts';
import type { Organization } from '../../wire/rest-types.ts';
import { OrganizationRef } from '../refs.ts';
import type { InputSpec } from './input.ts';
import { createMutation, deleteMutation, type RecordKind, updateMutation } from './record-mutations.ts';

export const ORGANIZATION: RecordKind<Organization, OrganizationRecord> = {
  typeName: 'Organization',
  ref: OrganizationRef,
  field: 'organization',
  noun: 'organization',
  scope: 'organization:write',
  loader: (context) => context.loaders.organizations,
};

const FIELDS: InputSpec = {
  name: ['String', 'Display name (the minimal create example gives only this).'],
  is_member_join_email_enabled: ['Boolean', 'Whether members get an e-mail when someone joins.'],
  enforce_2fa: ['Boolean', 'Whether members must use two-factor authentication.'],
};

createMutation(ORGANIZATION, {
  description: "Creates an organization; the caller's user becomes its owner.",
  fields: FIELDS,
  send: (rest, _parentId, body) => rest.createOrganization(body),
});

updateMutation(ORGANIZATION, {
  description: 'Changes an organization.',
  fields: FIELDS,
  send: (rest, at, body) => rest.updateOrganization(at.pathId, body),
});

deleteMutation(ORGANIZATION, {
  description: 'Deletes an organization and everything in it.',
  send: (rest, at) => rest.deleteOrganization(at.pathId),
});
