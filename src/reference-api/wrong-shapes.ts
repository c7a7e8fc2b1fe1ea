// Well-formed answers that are not what the REST interface answers (issue 12, section 6), each made
// from the right answer: a client must turn every one into an error of the call that asked, never
// into data. The `wrongShape` fault of faults.ts sends one of them.
import type { EncodedAnswer } from './http.ts';

export const WRONG_SHAPES = [
  'resultsObject',
  'resultsNull',
  'resultsString',
  'emptyArrayBody',
  'nullBody',
  'numberBody',
  'htmlPage',
  'emptyBody',
  'noContent',
  'idNull',
  'countMissing',
  'countNegative',
  'teamsString',
  'deepJson',
] as const;
export type WrongShape = (typeof WRONG_SHAPES)[number];

const DEEP = '__deep_json__';
/** A JSON value nested 5,000 arrays deep. */
const DEEP_JSON_TEXT = `${'['.repeat(5000)}"LEAK"${']'.repeat(5000)}`;

type Json = Record<string, unknown>;

function raw(status: number, contentType: string, body: Buffer): EncodedAnswer {
  return { status, headers: { 'content-type': contentType, 'content-length': String(body.length) }, body, head: false };
}

const ok = (value: unknown) => raw(200, 'application/json', Buffer.from(JSON.stringify(value) ?? ''));

/** One wrong shape made from `right`, the answer the server would have sent (a list page or a record). */
export function wrongShape(shape: WrongShape, right: EncodedAnswer): EncodedAnswer {
  const parsed = parse(right.body);
  const isPage = parsed !== null && Array.isArray(parsed.results);
  const records = (isPage ? (parsed.results as Json[]) : [parsed ?? {}]).map((record) => ({ ...record }));
  const withRecords = (next: Json[]) => ok(isPage ? { ...parsed, results: next } : next[0]);
  switch (shape) {
    case 'resultsObject':
      return ok({ ...parsed, results: {} });
    case 'resultsNull':
      return ok({ ...parsed, results: null });
    case 'resultsString':
      return ok({ ...parsed, results: '../../x' });
    case 'emptyArrayBody':
      return ok([]);
    case 'nullBody':
      return ok(null);
    case 'numberBody':
      return ok(42);
    case 'htmlPage':
      return raw(200, 'text/html', Buffer.from('<!doctype html><title>Bad gateway</title><p>upstream proxy page</p>'));
    case 'emptyBody':
      return raw(200, 'application/json', Buffer.alloc(0));
    case 'noContent':
      return raw(204, 'application/json', Buffer.alloc(0));
    case 'idNull':
      return withRecords(records.map((record, i) => (i === 0 ? { ...record, id: null } : record)));
    case 'countMissing':
      return isPage ? ok({ ...parsed, count: undefined }) : ok({ ...parsed, id: '../../x' });
    case 'countNegative':
      return isPage ? ok({ ...parsed, count: -5 }) : ok({ ...parsed, id: 42 });
    case 'teamsString':
      return withRecords(
        records.map((record) => ('teams' in record ? { ...record, teams: 'abc' } : { ...record, name: { nested: 'LEAK' } })),
      );
    case 'deepJson': {
      // Built as text: JSON.stringify itself overflows the stack on a value this deep.
      const placeholder = withRecords(
        records.map((record) => ({ ...record, metadata: DEEP, config_schema: DEEP, destination: { type: 'S3', config: DEEP } })),
      );
      return raw(200, 'application/json', Buffer.from(placeholder.body.toString('utf8').replaceAll(JSON.stringify(DEEP), DEEP_JSON_TEXT)));
    }
  }
}

function parse(body: Buffer): Json | null {
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
  } catch {
    return null; // an empty (204) answer
  }
}
