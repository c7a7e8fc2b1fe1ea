// What a request to the fast path asks for, read as Yoga's request parsers read it: a JSON POST's
// body, or a GET's URL. Only parameters that ask for a query, as text or by a persisted operation's
// id, and hold nothing else a plugin would look at are taken (./fast-path.ts); anything else is left
// to Yoga's parsers and plugins.
import { isOperationName } from '../operation-name.ts';

export interface Params {
  query?: string;
  operationName?: string | null;
  variables?: Record<string, never> | null;
  /** A persisted operation's id, sent instead of the query. */
  extensions?: { persistedQuery: { version: 1; sha256Hash: string } };
}

/**
 * The body's parameters when they ask for a query, as text or by a persisted operation's id, and
 * hold nothing else a plugin would look at: no variables, no other extensions.
 */
export function knownQueryParams(body: unknown): Params | undefined {
  if (!isNonEmptyObject(body)) return undefined;
  for (const [key, value] of Object.entries(body)) {
    if (
      key === 'query'
        ? typeof value !== 'string'
        : key === 'operationName'
          ? !validName(value)
          : key === 'variables'
            ? !emptyObject(value)
            : key === 'extensions'
              ? !isPersistedQueryId(value)
              : true
    )
      return undefined;
  }
  // One or the other: a text with an id registers it (APQ), or is refused (a manifest): the plugin's to do.
  return 'query' in body !== 'extensions' in body ? (body as Params) : undefined;
}

/** `{ persistedQuery: { version: 1, sha256Hash } }` and nothing more: the id both persisted-operation plugins read. */
function isPersistedQueryId(extensions: unknown): boolean {
  if (!isNonEmptyObject(extensions) || Object.keys(extensions).length !== 1) return false;
  const { persistedQuery } = extensions;
  return (
    isNonEmptyObject(persistedQuery) &&
    Object.keys(persistedQuery).length === 2 &&
    persistedQuery.version === 1 &&
    typeof persistedQuery.sha256Hash === 'string'
  );
}

export const isNonEmptyObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length > 0;
const validName = (value: unknown) => value === null || (typeof value === 'string' && isOperationName(value));
const emptyObject = (value: unknown) =>
  value === null || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0);

/** The body as JSON; undefined when it is not JSON (Yoga's parser refuses it). */
export function parsedJson(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * A GET's parameters as Yoga's GET parser reads them from its URL: `query` and `operationName` as
 * text, `variables` and `extensions` as JSON, an empty one as none, any other parameter ignored.
 * Undefined when `variables` or `extensions` is not JSON (Yoga's to refuse).
 */
export function urlParams(url: string): Record<string, unknown> | undefined {
  const search = new URLSearchParams(url.slice(url.indexOf('?') + 1));
  const params: Record<string, unknown> = {};
  for (const name of ['query', 'operationName', 'variables', 'extensions']) {
    const value = search.get(name);
    if (!value) continue;
    if (name === 'query' || name === 'operationName') params[name] = value;
    else {
      try {
        params[name] = JSON.parse(value);
      } catch {
        return undefined;
      }
    }
  }
  return params;
}
