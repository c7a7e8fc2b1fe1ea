// Django REST framework's LimitOffsetPagination, which the live service uses, reproduced exactly:
// the same fallbacks for bad parameters and the same absolute next/previous links.
import type { Page } from '../wire/rest-types.ts';

const DEFAULT_LIMIT = 100;

/** DRF's `_positive_int`: Python `int()` syntax; `strict` also rejects 0. */
function positiveInt(raw: string | null, strict: boolean): number | null {
  if (raw === null || !/^\s*[+-]?\d+(?:_\d+)*\s*$/.test(raw)) return null;
  const value = Number(raw.trim().replace(/_/g, ''));
  if (value < 0 || (strict && value === 0) || !Number.isSafeInteger(value)) return null;
  return value;
}

/** Django's QueryDict gives the last value of a repeated parameter. */
function lastValue(query: URLSearchParams, name: string): string | null {
  const all = query.getAll(name);
  return all.length ? (all[all.length - 1] ?? null) : null;
}

function readLimit(query: URLSearchParams, maxPageSize: number | null): number {
  // An absent, zero, negative or non-integer limit falls back to the default, as in DRF.
  const limit = positiveInt(lastValue(query, 'limit'), true) ?? DEFAULT_LIMIT;
  // The page cap emulates an upstream with `max_limit`; unlike DRF it caps the default too.
  return maxPageSize && maxPageSize > 0 ? Math.min(limit, maxPageSize) : limit;
}

function readOffset(query: URLSearchParams): number {
  return positiveInt(lastValue(query, 'offset'), false) ?? 0;
}

/** Python's `urlencode` (quote_plus): like encodeURIComponent, but also escapes !'()* and uses + for spaces. */
function quotePlus(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** DRF's replace_query_param / remove_query_param: re-encodes the query sorted by name. */
function withQuery(url: URL, changes: Record<string, string | null>): string {
  const grouped = new Map<string, string[]>();
  for (const [name, value] of url.searchParams) grouped.set(name, [...(grouped.get(name) ?? []), value]);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) grouped.delete(name);
    else grouped.set(name, [value]);
  }
  const query = [...grouped.keys()]
    .sort()
    .flatMap((name) => (grouped.get(name) ?? []).map((value) => `${quotePlus(name)}=${quotePlus(value)}`))
    .join('&');
  return `${url.origin}${url.pathname}${query ? `?${query}` : ''}`;
}

/**
 * One page of `items`. `requestUrl` is the absolute URL of the request (built from its Host header),
 * as DRF's `request.build_absolute_uri()`.
 */
function paginate<T>(items: readonly T[], requestUrl: URL, maxPageSize: number | null): Page<T> {
  const limit = readLimit(requestUrl.searchParams, maxPageSize);
  const offset = readOffset(requestUrl.searchParams);
  const count = items.length;
  const results = offset >= count ? [] : items.slice(offset, offset + limit);
  const next = offset + limit >= count ? null : withQuery(requestUrl, { limit: String(limit), offset: String(offset + limit) });
  let previous: string | null = null;
  if (offset > 0) {
    previous =
      offset - limit <= 0
        ? withQuery(requestUrl, { limit: String(limit), offset: null })
        : withQuery(requestUrl, { limit: String(limit), offset: String(offset - limit) });
  }
  return { count, next, previous, results };
}

/** A 200 reply with one page of `records`, serializing only the records on the page. */
export function listReply<T, U>(
  ctx: { url: URL; settings: { maxPageSize: number | null | undefined } },
  records: readonly T[],
  serialize: (record: T) => U,
): { status: number; body: Page<U> } {
  const page = paginate(records, ctx.url, ctx.settings.maxPageSize ?? null);
  return { status: 200, body: { ...page, results: page.results.map(serialize) } };
}
