// /api/organizations/:organization_id/members: list, update level, remove (seed 4.5).
// Members are addressed by their user's uuid (`user__uuid`). The permission rules are the live
// service's OrganizationMembership.validate_update.
import { permissionDenied } from '../api-errors.ts';
import { found, normalizeUuid, requireOrganization } from '../lookup.ts';
import { listReply } from '../pagination.ts';
import { noContent, ok, type Route, type RouteContext } from '../router.ts';
import { serializeMember } from '../serializers.ts';
import { LEVEL_ADMIN, LEVEL_OWNER, MEMBER_LEVELS, type StoredMembership } from '../stored-records.ts';
import { type Schema, validateFields } from '../validation.ts';

const MEMBER_FIELDS: Schema = {
  level: { kind: 'choice', choices: MEMBER_LEVELS },
};

function findMember(ctx: RouteContext): { target: StoredMembership; requester: StoredMembership } {
  const { org, membership } = requireOrganization(ctx);
  const user = ctx.store.userByUuid(normalizeUuid(ctx.params.user__uuid ?? '') ?? '');
  return { target: found(user && ctx.store.membership(org.id, user.id)), requester: membership };
}

/** The rules for touching someone else's membership at all. */
function checkCanEditOthers(requester: StoredMembership, target: StoredMembership): void {
  if (target.id === requester.id) return;
  if (requester.level < LEVEL_ADMIN) throw permissionDenied('You can only edit others if you are an admin.');
  if (target.level > requester.level) throw permissionDenied('You can only edit others with level lower or equal to you.');
}

function list(ctx: RouteContext) {
  const { org } = requireOrganization(ctx);
  return listReply(ctx, ctx.store.membersOf(org.id), (m) => serializeMember(ctx.store, m));
}

function update(ctx: RouteContext) {
  const { target, requester } = findMember(ctx);
  checkCanEditOthers(requester, target);
  const fields = validateFields(ctx.body, MEMBER_FIELDS, true);
  if (fields.level !== undefined && fields.level !== target.level) {
    const level = Number(fields.level);
    if (target.id === requester.id) throw permissionDenied("You can't change your own access level.");
    const now = ctx.store.now();
    if (level === LEVEL_OWNER) {
      if (requester.level !== LEVEL_OWNER) {
        throw permissionDenied("You can only make another member owner if you're this organization's owner.");
      }
      // Ownership is transferred: the previous owner becomes an admin, as live.
      requester.level = LEVEL_ADMIN;
      requester.updated_at = now;
    } else if (level > requester.level) {
      throw permissionDenied('You can only change access level of others to lower or equal to your current one.');
    }
    target.level = level;
    target.updated_at = now;
  }
  return ok(serializeMember(ctx.store, target));
}

/** Anyone may leave; admins may remove others up to their level; nobody removes the owner (403). */
function destroy(ctx: RouteContext) {
  const { target, requester } = findMember(ctx);
  checkCanEditOthers(requester, target);
  if (target.level === LEVEL_OWNER) throw permissionDenied('The organization owner cannot be removed.');
  ctx.store.memberships.delete(target.id);
  return noContent();
}

const base = '/api/organizations/:organization_id/members';
export const memberRoutes: Route[] = [
  { path: base, scope: 'organization_member', handlers: { GET: list } },
  { path: `${base}/:user__uuid`, scope: 'organization_member', handlers: { PATCH: update, DELETE: destroy } },
];
