// Which cached answers a write can change, named as generation scopes. Each cached answer is valid
// only while the generations of the scopes its GET depends on are the ones read when it was looked
// up; a write gives the scopes its route names a new generation. So a write costs O(1), whatever
// the number of answers and keys it makes stale.
//   all           every answer (an organization deleted, a member removed)
//   orgs          the organizations list
//   org:<id>      the organization's record and everything under /api/organizations/<id>/
//   project:<id>  everything under /api/projects/<id>/ (its surveys)
import { GLOBAL_SCOPE } from '../store/shared-store.ts';

/** The scopes an answer of this GET depends on; undefined when it must not be cached. */
export function readScopes(path: string): string[] | undefined {
  const [, api, collection, id] = path.split('/');
  if (api !== 'api' || namesCurrent(path)) return undefined;
  if (collection === 'organizations') return [GLOBAL_SCOPE, id ? organizationScope(id) : ORGANIZATIONS_SCOPE];
  if (collection === 'projects' && id) return [GLOBAL_SCOPE, projectScope(id)];
  return undefined;
}

/** The scopes a write to this path (POST, PATCH or DELETE) makes stale. */
export function writeScopes(method: string, path: string): string[] {
  const [, api, collection, id, child] = path.split('/');
  if (api !== 'api' || namesCurrent(path)) return [GLOBAL_SCOPE];
  if (collection === 'organizations') {
    if (!id) return [ORGANIZATIONS_SCOPE]; // a new organization
    // Losing an organization or a membership loses access to its projects, whose answers the
    // route does not name.
    if ((!child || child === 'members') && method === 'DELETE') return [GLOBAL_SCOPE];
    // The organizations list shows each record (its name, its member count and the caller's level).
    if (!child || child === 'members') return [organizationScope(id), ORGANIZATIONS_SCOPE];
    return [organizationScope(id)];
  }
  if (collection === 'projects' && id) return [projectScope(id)];
  return [GLOBAL_SCOPE];
}

const ORGANIZATIONS_SCOPE = 'orgs';
/** `@current` (the caller's first organization or project) is another id's record under another name. */
const namesCurrent = (path: string) => path.includes('/%40current/') || path.includes('/@current/');
const organizationScope = (segment: string) => `org:${canonical(segment)}`;
const projectScope = (segment: string) => `project:${canonical(segment)}`;

/**
 * One scope per record however its id is written: the upstream reads a UUID in any case and a
 * project id with leading zeros, so `ABC…` and `abc…`, `007` and `7`, are one scope.
 */
function canonical(segment: string): string {
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    id = segment;
  }
  return /^\d+$/.test(id) ? id.replace(/^0+(?=\d)/, '') : id.toLowerCase();
}
