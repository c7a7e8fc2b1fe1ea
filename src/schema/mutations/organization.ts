// createOrganization, updateOrganization, deleteOrganization (seed 4.1).
import type { OrganizationRecord } from '../../loaders/tagged-records.ts';
import type { Organization } from '../../wire/rest-types.ts';
import { ORGANIZATION_SETTINGS } from '../organization.ts';
import { OrganizationRef } from '../refs.ts';
import type { RestInputTable } from '../rest-fields.ts';
import { createMutation, deleteMutation, type RecordKind, updateMutation } from './record-mutations.ts';

const ORGANIZATION: RecordKind<Organization, OrganizationRecord> = {
  ref: OrganizationRef,
  field: 'organization',
  noun: 'organization',
  scope: 'organization:write',
  loader: (context) => context.loaders.organizations,
};

const FIELDS: RestInputTable = {
  name: ['name', 'String', 'Display name (the minimal create example gives only this).'],
  isMemberJoinEmailEnabled: [
    'is_member_join_email_enabled',
    'Boolean',
    'Whether members get an e-mail when someone joins (the service ignores it: a change answers `NotAppliedError`).',
    { deprecated: 'Read-only in the service: it ignores this field in writes. Read `Organization.isMemberJoinEmailEnabled`.' },
  ],
  enforce2fa: ['enforce_2fa', 'Boolean', 'Whether members must use two-factor authentication.'],
  ...ORGANIZATION_SETTINGS,
};

createMutation(ORGANIZATION, {
  names: ['createOrganization', 'CreateOrganizationInput', 'CreateOrganizationPayload', 'CreateOrganizationResult'],
  description: "Creates an organization; the caller's user becomes its owner.",
  fields: FIELDS,
  send: (rest, _parentId, body) => rest.createOrganization(body),
});

updateMutation(ORGANIZATION, {
  names: ['updateOrganization', 'UpdateOrganizationInput', 'UpdateOrganizationPayload', 'UpdateOrganizationResult'],
  description: 'Changes an organization.',
  fields: FIELDS,
  send: (rest, at, body) => rest.updateOrganization(at.pathId, body),
});

deleteMutation(ORGANIZATION, {
  names: ['deleteOrganization', 'DeleteOrganizationInput', 'DeleteOrganizationPayload', 'DeleteOrganizationResult'],
  description: 'Deletes an organization and everything in it.',
  send: (rest, at) => rest.deleteOrganization(at.pathId),
});
