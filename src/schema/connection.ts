// Relay connections over REST limit/offset lists: argument checks, opaque cursors, and the
// fewest upstream calls that fill the requested window.
import { type GraphQLResolveInfo, Kind, type SelectionSetNode } from 'graphql';
import { gatewayError } from '../errors/graphql-errors.ts';
import { isIncluded } from '../limits/selections.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../loaders/page-size.ts';
import type { Page } from '../wire/rest-types.ts';

interface ConnectionArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

interface ConnectionResult<R> {
  edges: { cursor: string; node: R }[];
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  totalCount: number;
}

/** Loads one page of the list behind a connection (through the request's loaders). */
type PageFetcher<R> = (limit: number, offset: number) => Promise<Page<R>>;

/** The list behind a connection: its pages, and its count without records when that is all we need. */
interface ListSource<R> {
  page: PageFetcher<R>;
  count(): Promise<number>;
}

const CURSOR_PREFIX = 'c1';

/**
 * Cursors name their connection (e.g. `batchExports:<organization id>`) and an offset, so a cursor
 * from another connection is refused instead of silently paging the wrong list.
 */
function encodeCursor(connectionKey: string, offset: number): string {
  return Buffer.from(`${CURSOR_PREFIX}:${offset}:${connectionKey}`).toString('base64url');
}

function decodeCursor(connectionKey: string, cursor: string, argName: string): number {
  const { offset, connection } = parseCursor(cursor, argName);
  if (connection !== connectionKey) throw notACursor(argName);
  return offset;
}

/** A cursor's offset and connection; BAD_USER_INPUT when it is not one this gateway made. */
function parseCursor(cursor: string, argName: string): { offset: number; connection: string } {
  const match = /^c1:(\d{1,9}):(.*)$/s.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || encodeCursor(match[2] as string, Number(match[1])) !== cursor) throw notACursor(argName);
  return { offset: Number(match[1]), connection: match[2] as string };
}

const notACursor = (argName: string) =>
  gatewayError('BAD_USER_INPUT', `\`${argName}\` is not a cursor of this connection.`, { argumentName: argName });

/**
 * What can be checked of a connection's arguments without its parent: the page sizes, and that each
 * cursor is one the gateway made for a connection of this field (its key is the field's name, and
 * the parent's id below the root). Run on the whole operation before it executes
 * (src/schema/argument-checks.ts), so a bad one deep in it is refused before any upstream call;
 * whether a cursor belongs to this very parent is checked when the field resolves.
 */
export function checkConnectionArguments(args: ConnectionArgs, fieldName: string): void {
  checkSize(args.first, 'first');
  checkSize(args.last, 'last');
  for (const argName of ['after', 'before'] as const) {
    const cursor = args[argName];
    if (cursor == null) continue;
    const { connection } = parseCursor(cursor, argName);
    if (connection !== fieldName && !connection.startsWith(`${fieldName}:`)) throw notACursor(argName);
  }
}

export function checkSize(value: number | null | undefined, argName: string): number | undefined {
  if (value == null) return undefined;
  if (value < 0 || value > MAX_PAGE_SIZE) {
    throw gatewayError('BAD_USER_INPUT', `\`${argName}\` must be between 0 and ${MAX_PAGE_SIZE}.`, { argumentName: argName });
  }
  return value;
}

/** Validates the arguments before any upstream call: the window of the list they ask for. */
function pageWindow(connectionKey: string, args: ConnectionArgs) {
  let first = checkSize(args.first, 'first');
  const last = checkSize(args.last, 'last');
  const start = args.after == null ? 0 : decodeCursor(connectionKey, args.after, 'after') + 1;
  const before = args.before == null ? Number.POSITIVE_INFINITY : decodeCursor(connectionKey, args.before, 'before');
  if (first === undefined && last === undefined) first = DEFAULT_PAGE_SIZE;
  const end = first === undefined ? before : Math.min(before, start + first);
  return { start, end: Math.max(start, end), last };
}

/**
 * The connection of `list` that `args` ask for. Promise chains rather than async functions here and
 * in fetchRange: every list field of a query is a call in flight, and a suspended frame per layer
 * per call is what the young collections copy while it waits.
 */
export function resolveRestConnection<R>(
  connectionKey: string,
  args: ConnectionArgs,
  info: GraphQLResolveInfo,
  list: ListSource<R>,
): Promise<ConnectionResult<R>> {
  try {
    const { start, end, last } = pageWindow(connectionKey, args);
    if (!selectsAny(info, RECORD_FIELDS)) {
      // Only totalCount/pageInfo: a count is enough (from a sibling's page, or the smallest page).
      return list.count().then((count) => {
        const lo = windowStart(start, Math.min(end, count), last);
        return connectionOf(connectionKey, lo, Math.max(lo, Math.min(end, count)), count, []);
      });
    }
    if (end !== Number.POSITIVE_INFINITY) {
      const lo = windowStart(start, end, last);
      return fetchRange(list, lo, end - lo).then(({ count, records }) =>
        connectionOf(connectionKey, lo, lo + records.length, count, records),
      );
    }
    // `last` without an upper bound: the window's place depends on `count`, which the first
    // answer tells. Ask for the first `last` records after `start`; when they reach the end they
    // are the window, else one more call fetches the tail.
    const wanted = last ?? DEFAULT_PAGE_SIZE;
    return fetchRange(list, start, wanted).then(({ count, records }) => {
      if (count - start <= wanted) return connectionOf(connectionKey, start, start + records.length, count, records);
      const lo = count - wanted;
      return fetchRange(list, lo, wanted).then((tail) =>
        connectionOf(connectionKey, lo, lo + tail.records.length, tail.count, tail.records),
      );
    });
  } catch (error) {
    return Promise.reject(error); // a bad argument fails the field's promise, as from an async function
  }
}

function connectionOf<R>(connectionKey: string, lo: number, hi: number, count: number, records: R[]): ConnectionResult<R> {
  const edges = records.map((node, i) => new Edge(node, connectionKey, lo + i));
  return { edges, totalCount: count, pageInfo: new PageInfo(connectionKey, lo, hi, count) };
}

/** The window's place in the list; like an edge's, its cursors are encoded only when selected. */
class PageInfo {
  readonly hasPreviousPage: boolean;
  readonly hasNextPage: boolean;

  constructor(
    private readonly connectionKey: string,
    private readonly lo: number,
    private readonly hi: number,
    count: number,
  ) {
    this.hasPreviousPage = lo > 0 && count > 0;
    this.hasNextPage = hi < count;
  }

  get startCursor(): string | null {
    return this.hi > this.lo ? encodeCursor(this.connectionKey, this.lo) : null;
  }

  get endCursor(): string | null {
    return this.hi > this.lo ? encodeCursor(this.connectionKey, this.hi - 1) : null;
  }
}

/** An edge whose cursor is encoded only when a query selects it (`nodes { … }` never does). */
class Edge<R> {
  constructor(
    readonly node: R,
    private readonly connectionKey: string,
    private readonly offset: number,
  ) {}

  get cursor(): string {
    return encodeCursor(this.connectionKey, this.offset);
  }
}

function windowStart(start: number, end: number, last: number | undefined): number {
  return last === undefined ? start : Math.max(start, end - last);
}

interface Range<R> {
  count: number;
  records: R[];
}

/** Fetches `size` records from `offset`. */
export function fetchRange<R>(list: ListSource<R>, offset: number, size: number): Promise<Range<R>> {
  try {
    // An empty window (`first: 0`) needs only the count, which a sibling page may already have.
    if (size <= 0) return list.count().then((count) => ({ count, records: [] as R[] }));
    return list.page(size, offset).then((page) => rangeWith(list, offset, size, [], page));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The records so far and the next page's. An upstream that caps its page size answers with fewer
 * records than asked while `count` says more exist: keep asking from where it stopped.
 */
function rangeWith<R>(list: ListSource<R>, offset: number, size: number, before: R[], page: Page<R>): Range<R> | Promise<Range<R>> {
  const wanted = size - before.length;
  const taken = page.results.length <= wanted ? page.results : page.results.slice(0, wanted);
  // Nearly always the first page is the whole window: use its array as it is.
  const records = before.length === 0 ? taken : before.concat(taken);
  if (records.length >= size || page.results.length === 0 || offset + records.length >= page.count) return { count: page.count, records };
  return list.page(size - records.length, offset + records.length).then((next) => rangeWith(list, offset, size, records, next));
}

/** The connection's fields that need its records (the others need only the count). */
const RECORD_FIELDS: readonly string[] = ['edges', 'nodes'];

/** Whether the connection field's selection (through fragments, as @skip/@include leave it) includes any of `names`. Loops, not closures: every connection asks. */
function selectsAny(info: GraphQLResolveInfo, names: readonly string[]): boolean {
  // Fragments already searched, and so without any of `names`: each is searched once however often
  // it is spread, so a document cannot make this search exponential.
  const searched = new Set<string>();
  for (const field of info.fieldNodes) {
    if (field.selectionSet && setSelects(info, field.selectionSet, names, searched)) return true;
  }
  return false;
}

function setSelects(info: GraphQLResolveInfo, set: SelectionSetNode, names: readonly string[], searched: Set<string>): boolean {
  for (const selection of set.selections) {
    if (!isIncluded(selection, info.variableValues)) continue;
    if (selection.kind === Kind.FIELD) {
      if (names.includes(selection.name.value)) return true;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (setSelects(info, selection.selectionSet, names, searched)) return true;
    } else if (!searched.has(selection.name.value)) {
      searched.add(selection.name.value);
      const fragment = info.fragments[selection.name.value];
      if (fragment && setSelects(info, fragment.selectionSet, names, searched)) return true;
    }
  }
  return false;
}
