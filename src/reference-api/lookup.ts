// Finding the organization, project or record a path names, on behalf of the calling user.
// Anything the user may not see is a 404, exactly like an id that does not exist.
import { isUuid } from '../wire/uuid.ts';
import { notFound, permissionDenied } from './api-errors.ts';
import type { RouteContext } from './router.ts';
import type { StoredMembership, StoredOrganization, StoredTeam } from './stored-records.ts';

/** Django's UUIDField lookup: any case, with or without dashes. Anything else is a 404. */
export function normalizeUuid(value: string): string | null {
  const hex = value.toLowerCase().replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/.test(hex)) return null;
  if (value.includes('-') && !isUuid(value)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An integer id (pipeline items, projects); anything else is a 404. */
export function parseIntegerId(value: string): number | null {
  return /^\d{1,10}$/.test(value) && Number(value) <= 2147483647 ? Number(value) : null;
}

export interface OrganizationAccess {
  org: StoredOrganization;
  membership: StoredMembership;
}

/**
 * The organization `:organization_id` names, if the caller belongs to it. `@current` is the caller's
 * current organization, as in the live service (here: the first one they joined).
 */
export function requireOrganization(ctx: RouteContext, id = ctx.params.organization_id ?? ''): OrganizationAccess {
  const { store, user } = ctx;
  const org = id === '@current' ? store.organizationsOf(user.id)[0] : store.organizations.get(normalizeUuid(id) ?? '');
  const membership = org && store.membership(org.id, user.id);
  if (!org || !membership) throw notFound();
  return { org, membership };
}

/** The live service's OrganizationAdminWritePermissions / OrganizationPermissionsWithDelete message. */
export function requireLevel(membership: StoredMembership, level: number): void {
  if (membership.level < level) throw permissionDenied('Your organization access level is insufficient.');
}

/** The project `:project_id` names (its id, or `@current`), if the caller belongs to its organization. */
export function requireProject(ctx: RouteContext): { team: StoredTeam; access: OrganizationAccess } {
  const { store, user } = ctx;
  const raw = ctx.params.project_id ?? '';
  let team: StoredTeam | undefined;
  if (raw === '@current') {
    const org = store.organizationsOf(user.id)[0];
    team = org && store.teamsOf(org.id)[0];
  } else {
    const id = parseIntegerId(raw);
    team = id === null ? undefined : store.teamByProjectId(id);
  }
  if (!team || !store.membership(team.organization_id, user.id)) throw notFound();
  return { team, access: requireOrganization(ctx, team.organization_id) };
}

export function found<T>(record: T | undefined | null): T {
  if (record === undefined || record === null) throw notFound();
  return record;
}
