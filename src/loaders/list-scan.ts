// Finds records by id where REST has no retrieve (invites, members): by paging the parent's list,
// several ids in one scan, and never past `maxPages` pages. The first page tells `count` and the
// upstream's page size; the other pages within the bound then go out together, so a scan takes two
// round trips however long it is (the fan-out estimate counts the bound either way).
import { gatewayError, isNotFound } from '../errors/graphql-errors.ts';
import type { Page } from '../wire/rest-types.ts';
import { MAX_PAGE_SIZE } from './page-size.ts';

interface ListScan<R> {
  page(limit: number, offset: number): Promise<Page<R>>;
  idOf(record: R): string;
  maxPages: number;
}

/**
 * Each id's record; null when the scan saw the whole list without it; else an Error: the failure of
 * a page the record could have been on, or QUERY_TOO_COMPLEX when the list is longer than the bound.
 */
export async function scanList<R>(ids: readonly string[], { page, idOf, maxPages }: ListScan<R>): Promise<(R | null | Error)[]> {
  const wanted = new Set(ids);
  const found = new Map<string, R>();
  const take = ({ results }: Page<R>) => {
    for (const record of results) {
      const id = idOf(record);
      if (wanted.has(id)) found.set(id, record);
    }
  };

  let first: Page<R>;
  try {
    first = await page(MAX_PAGE_SIZE, 0);
  } catch (error) {
    return ids.map(() => lookupFailure(error));
  }
  take(first);
  // A capped upstream returns fewer than asked: the next pages start where each would end.
  const stride = first.results.length;
  const pagesInList = stride === 0 ? 1 : Math.ceil(first.count / stride);
  const pages = Math.min(pagesInList, maxPages);
  let failure: unknown;
  if (found.size < wanted.size && pages > 1) {
    const rest = await Promise.allSettled(Array.from({ length: pages - 1 }, (_, i) => page(MAX_PAGE_SIZE, (i + 1) * stride)));
    for (const outcome of rest) {
      if (outcome.status === 'fulfilled') take(outcome.value);
      else failure ??= outcome.reason;
    }
  }
  const missing = failure !== undefined ? lookupFailure(failure) : pagesInList <= maxPages ? null : beyondBound(maxPages, pages * stride);
  return ids.map((id) => found.get(id) ?? missing);
}

/** What a failed lookup call gives its record: a 404 (of the record, or of its parent's list) is null, any other failure its error. */
export function lookupFailure(error: unknown): Error | null {
  if (isNotFound(error)) return null;
  return error instanceof Error ? error : new Error(String(error));
}

/** Not null: that would claim the record does not exist, when it may be further down the list. */
function beyondBound(maxPages: number, scanned: number) {
  return gatewayError(
    'QUERY_TOO_COMPLEX',
    `This record is not among the first ${scanned} of its list, which is as far as a lookup without a REST retrieve looks (${maxPages} pages). Page through the list to reach it.`,
    { limit: 'maxLookupScanPages', maxLookupScanPages: maxPages },
  );
}
