// REST paths: every caller-supplied id becomes exactly one encoded path segment, and every path ends
// with '/' as the seed's examples do (the live service redirects otherwise, and we never follow redirects).

/** An id that cannot be one path segment ('', '.', '..', or not encodable). The schema reports it as BAD_USER_INPUT. */
export class InvalidPathSegmentError extends Error {
  override readonly name = 'InvalidPathSegmentError';
  constructor(readonly param?: string) {
    super(`Invalid ${param ?? 'identifier'}: it must not be empty, "." or "..".`);
  }
}

/** Percent-encodes one path segment; rejects values that would address another path. */
export function segment(value: string | number, param?: string): string {
  if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new InvalidPathSegmentError(param);
  const text = String(value);
  // '.' and '..' survive encodeURIComponent and would be resolved as path navigation.
  if (text === '' || text === '.' || text === '..') throw new InvalidPathSegmentError(param);
  try {
    return encodeURIComponent(text);
  } catch {
    throw new InvalidPathSegmentError(param); // a lone surrogate
  }
}

export type PathParams = Record<string, string | number>;

/**
 * Fills a route template such as `/api/organizations/:organization_id/domains/:id/` with encoded
 * segments. The template itself is what errors and metrics name.
 */
export function buildPath(template: string, params: PathParams = {}): string {
  let path = '';
  for (const piece of compiled(template)) {
    if (piece.param === undefined) {
      path += piece.text;
      continue;
    }
    const value = params[piece.param];
    if (value === undefined) throw new Error(`buildPath: no value for :${piece.param} in ${template}`);
    path += segment(value, piece.param);
  }
  return path.endsWith('/') ? path : `${path}/`;
}

/** A template split into fixed text and `:param` pieces, once per template (a few dozen exist). */
type Piece = { text: string; param?: undefined } | { param: string };
const compiledTemplates = new Map<string, Piece[]>();

function compiled(template: string): Piece[] {
  let pieces = compiledTemplates.get(template);
  if (!pieces) {
    pieces = template.split(/(:\w+)/).map((text): Piece => (text.startsWith(':') ? { param: text.slice(1) } : { text }));
    if (compiledTemplates.size < 1000) compiledTemplates.set(template, pieces);
  }
  return pieces;
}
