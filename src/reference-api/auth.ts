// Personal API keys and their scopes, as the live service checks them: `Authorization: Bearer <key>`;
// `<object>:read` for reads, `<object>:write` for writes; `:write` also grants `:read`; `*` grants all.
import { authenticationFailed, notAuthenticated, permissionDenied } from './api-errors.ts';

export interface ReferenceApiKey {
  key: string;
  userId: number;
  scopes: string[];
  label: string;
}

/** The scope objects of the seed's section 5. */
export type ScopeObject = 'organization' | 'batch_export' | 'organization_member' | 'plugin' | 'survey';

/** Finds the key a request carries; 401 when there is none or it is unknown. */
export function authenticate(authorization: string | undefined, keys: readonly ReferenceApiKey[]): ReferenceApiKey {
  // Like the live service, a header that is not a Bearer token counts as no credentials at all.
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw notAuthenticated();
  const found = keys.find((candidate) => candidate.key === match[1]);
  if (!found) throw authenticationFailed();
  return found;
}

/** GET (and HEAD) need the read scope; everything else the write scope, the seed's (*) actions too. */
function requiredScope(object: ScopeObject, method: string): string {
  return `${object}:${method === 'GET' || method === 'HEAD' ? 'read' : 'write'}`;
}

function hasScope(scopes: readonly string[], required: string): boolean {
  if (scopes.includes('*') || scopes.includes(required)) return true;
  const [object, access] = required.split(':');
  return access === 'read' && scopes.includes(`${object}:write`);
}

export function checkScope(key: ReferenceApiKey, object: ScopeObject, method: string): void {
  const required = requiredScope(object, method);
  if (!hasScope(key.scopes, required)) throw permissionDenied(`API key missing required scope '${required}'`);
}
