// /api/organizations: list, create, retrieve, update, delete (seed 4.1).

import { requireLevel, requireOrganization } from '../lookup.ts';
import { listReply } from '../pagination.ts';
import { created, noContent, ok, type Route, type RouteContext } from '../router.ts';
import { serializeOrganization } from '../serializers.ts';
import { LEVEL_ADMIN, LEVEL_OWNER } from '../stored-records.ts';
import { type Schema, validateFields } from '../validation.ts';

/**
 * Writable fields of the live serializer; 64 is its max length for a name. `is_member_join_email_enabled`
 * is read-only there, so it is ignored like every other read-only or unknown field.
 */
const ORGANIZATION_FIELDS: Schema = {
  name: { kind: 'string', required: true, maxLength: 64 },
  logo_media_id: { kind: 'uuid', nullable: true },
  enforce_2fa: { kind: 'boolean', nullable: true },
  enforce_verified_domains: { kind: 'boolean' },
  members_can_invite: { kind: 'boolean', nullable: true },
  members_can_create_projects: { kind: 'boolean', nullable: true },
  members_can_use_personal_api_keys: { kind: 'boolean' },
  members_can_see_org_members: { kind: 'boolean' },
  allow_publicly_shared_resources: { kind: 'boolean' },
  read_only_mcp_access: { kind: 'boolean' },
  is_ai_data_processing_approved: { kind: 'boolean', nullable: true },
  is_ai_training_opted_in: { kind: 'boolean' },
  default_anonymize_ips: { kind: 'boolean' },
  default_role_id: { kind: 'uuid', nullable: true },
};

function list(ctx: RouteContext) {
  return listReply(ctx, ctx.store.organizationsOf(ctx.user.id), (org) => serializeOrganization(ctx.store, org, ctx.user.id));
}

function create(ctx: RouteContext) {
  const fields = validateFields(ctx.body, ORGANIZATION_FIELDS, false);
  // As the live service's Organization.objects.bootstrap: the caller becomes owner, and the
  // organization gets a first project.
  const org = ctx.store.addOrganization({ ...fields, name: String(fields.name) }, { owner: ctx.user.id });
  return created(serializeOrganization(ctx.store, org, ctx.user.id));
}

function retrieve(ctx: RouteContext) {
  const { org } = requireOrganization(ctx, ctx.params.id);
  return ok(serializeOrganization(ctx.store, org, ctx.user.id));
}

function update(ctx: RouteContext) {
  const { org, membership } = requireOrganization(ctx, ctx.params.id);
  requireLevel(membership, LEVEL_ADMIN); // live: admins and owners may change an organization
  const fields = validateFields(ctx.body, ORGANIZATION_FIELDS, true);
  Object.assign(org, fields, { updated_at: ctx.store.now() }); // the slug stays, as in the live service
  return ok(serializeOrganization(ctx.store, org, ctx.user.id));
}

function destroy(ctx: RouteContext) {
  const { org, membership } = requireOrganization(ctx, ctx.params.id);
  requireLevel(membership, LEVEL_OWNER); // live: only the owner may delete (403 otherwise)
  ctx.store.deleteOrganization(org.id);
  return noContent();
}

export const organizationRoutes: Route[] = [
  { path: '/api/organizations', scope: 'organization', handlers: { GET: list, POST: create } },
  { path: '/api/organizations/:id', scope: 'organization', handlers: { GET: retrieve, PATCH: update, DELETE: destroy } },
];
