// Route table and dispatch. The order of checks, chosen to follow Django + DRF:
//   unknown path -> 404 (URL resolution happens before any view code);
//   no or unknown key -> 401; known path, wrong method -> 405; missing scope -> 403;
//   then the handler: an organization or project the key's user is not in -> 404, unknown id -> 404,
//   insufficient membership level -> 403, invalid body -> 400.
// So scope is checked before membership: a key without the scope learns nothing about which ids exist.

import { ApiError, authenticationFailed, methodNotAllowed, notFound, parseError, serverError } from './api-errors.ts';
import { authenticate, checkScope, type ReferenceApiKey, type ScopeObject } from './auth.ts';
import type { DecodedBody } from './http.ts';
import type { ReferenceApiSettings } from './options.ts';
import type { ReferenceStore } from './store.ts';
import type { StoredUser } from './stored-records.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RouteContext {
  method: string;
  params: Record<string, string>;
  /** The absolute request URL, from the Host header (pagination links are built from it). */
  url: URL;
  key: ReferenceApiKey;
  user: StoredUser;
  store: ReferenceStore;
  settings: ReferenceApiSettings;
  /** The JSON body; reading it throws the 400 parse error when it is malformed (DRF parses lazily too). */
  readonly body: unknown;
}

interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export type Handler = (ctx: RouteContext) => Reply;

export interface Route {
  /** `/api/organizations/:organization_id/domains/:id` (no trailing slash; both forms answer). */
  path: string;
  scope: ScopeObject;
  handlers: Partial<Record<Method, Handler>>;
}

export const ok = (body: unknown): Reply => ({ status: 200, body });
export const created = (body: unknown): Reply => ({ status: 201, body });
export const noContent = (): Reply => ({ status: 204 });

interface CompiledRoute {
  route: Route;
  segments: string[];
}

function splitPath(path: string): string[] {
  return path.split('/').slice(1);
}

export class Router {
  private readonly routes: CompiledRoute[];

  constructor(routes: readonly Route[]) {
    // Literal segments win over parameters (`/surveys/responses_count` before `/surveys/:id`).
    const rank = (segments: string[]) => segments.map((s) => (s.startsWith(':') ? '1' : '0')).join('');
    this.routes = routes
      .map((route) => ({ route, segments: splitPath(route.path) }))
      .sort((a, b) => rank(a.segments).localeCompare(rank(b.segments)));
  }

  match(path: string): { route: Route; params: Record<string, string> } | null {
    // One trailing slash is optional, as every path answers with and without it.
    const segments = (path.endsWith('/') ? path.slice(0, -1) : path).split('/').slice(1);
    for (const { route, segments: pattern } of this.routes) {
      if (pattern.length !== segments.length) continue;
      const params: Record<string, string> = {};
      const matched = pattern.every((part, index) => {
        const actual = segments[index] ?? '';
        if (part.startsWith(':')) {
          if (actual === '') return false;
          try {
            params[part.slice(1)] = decodeURIComponent(actual);
          } catch {
            return false;
          }
          return true;
        }
        return part === actual;
      });
      if (matched) return { route, params };
    }
    return null;
  }
}

interface IncomingCall {
  method: string;
  path: string;
  url: URL;
  authorization: string | undefined;
  body: DecodedBody;
}

/** Runs one request through the checks above and the route's handler. Never throws. */
export function dispatch(router: Router, call: IncomingCall, store: ReferenceStore, settings: ReferenceApiSettings): Reply {
  try {
    const found = router.match(call.path);
    if (!found) throw notFound();
    const key = authenticate(call.authorization, settings.keys);
    const user = store.users.get(key.userId);
    if (!user) throw authenticationFailed(); // a key whose user is gone is no longer valid
    const method = call.method === 'HEAD' ? 'GET' : call.method;
    const handler = found.route.handlers[method as Method];
    if (!handler) throw methodNotAllowed(call.method, Object.keys(found.route.handlers));
    checkScope(key, found.route.scope, method);
    const decoded = call.body;
    const ctx: RouteContext = {
      method,
      params: found.params,
      url: call.url,
      key,
      user,
      store,
      settings,
      get body() {
        if (!decoded.ok) throw parseError(decoded.message);
        return decoded.value;
      },
    };
    return handler(ctx);
  } catch (error) {
    const apiError = error instanceof ApiError ? error : serverError();
    if (!(error instanceof ApiError)) console.error('reference-api: unexpected error', error);
    return { status: apiError.status, body: apiError.body, headers: apiError.headers };
  }
}
