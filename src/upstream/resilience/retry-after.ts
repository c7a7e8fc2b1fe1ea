// When the upstream says it can be asked again, in whole seconds from now: `Retry-After` parsed
// strictly (RFC 9110 10.2.3), or the live service's throttling text. Anything else is absent.

/** The longest wait taken from an upstream: one hour; later values (a date decades ahead) are clamped to it. */
export const MAX_RETRY_AFTER_SECONDS = 3600;

const DAY_NAME = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY_NAME = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
/** `Sun, 06 Nov 1994 08:49:37 GMT`: groups day, month, year, time. */
const IMF_FIXDATE = new RegExp(`^${DAY_NAME}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** Obsolete, recipients must accept it: `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC850_DATE = new RegExp(`^${LONG_DAY_NAME}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** Obsolete, recipients must accept it: `Sun Nov  6 08:49:37 1994` (month, day, time, year). */
const ASCTIME_DATE = new RegExp(`^${DAY_NAME} ${MONTH} (\\d{2}| \\d) ${TIME} (\\d{4})$`);

/**
 * `Retry-After` is delta-seconds (`1*DIGIT`) or an HTTP-date; a list, a sign, a fraction or any
 * other date form is not a Retry-After. A past date means now.
 */
export function parseRetryAfter(header: string | string[] | undefined, now: number = Date.now()): number | undefined {
  // The field is a single value: sent twice, it says nothing usable.
  const value = (Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return clamp(Number(value));
  const at = parseHttpDate(value, now);
  return at === undefined ? undefined : clamp(Math.ceil((at - now) / 1000));
}

/** The live service's throttle detail: "Request was throttled. Expected available in 12 seconds." */
export function retryAfterFromDetail(detail: string | undefined): number | undefined {
  const match = detail?.match(/\bExpected available in (\d+) seconds?\./);
  return match?.[1] === undefined ? undefined : clamp(Number(match[1]));
}

/** An HTTP-date in any of the three forms RFC 9110 5.6.7 has recipients accept, as epoch milliseconds. */
export function parseHttpDate(text: string, now: number = Date.now()): number | undefined {
  let match = IMF_FIXDATE.exec(text);
  if (match) {
    const [, day, month, year, hour, minute, second] = match as unknown as string[];
    return utc(Number(year), month as string, Number(day), Number(hour), Number(minute), Number(second));
  }
  match = RFC850_DATE.exec(text);
  if (match) {
    const [, day, month, year, hour, minute, second] = match as unknown as string[];
    return utc(fullYear(Number(year), now), month as string, Number(day), Number(hour), Number(minute), Number(second));
  }
  match = ASCTIME_DATE.exec(text);
  if (match) {
    const [, month, day, hour, minute, second, year] = match as unknown as string[];
    return utc(Number(year), month as string, Number(day), Number(hour), Number(minute), Number(second));
  }
  return undefined;
}

/** RFC 9110: a two-digit year more than 50 years ahead is the latest past year with those digits. */
function fullYear(twoDigits: number, now: number): number {
  const thisYear = new Date(now).getUTCFullYear();
  const year = thisYear - (thisYear % 100) + twoDigits;
  return year > thisYear + 50 ? year - 100 : year;
}

/** Undefined for a day the month does not have or a time of day out of range (second 60: a leap second). */
function utc(year: number, monthName: string, day: number, hour: number, minute: number, second: number): number | undefined {
  const month = MONTHS.indexOf(monthName);
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(year, month, day); // not Date.UTC, which reads years 0-99 as 1900-1999
  if (date.getUTCDate() !== day) return undefined;
  return date.getTime() + ((hour * 60 + minute) * 60 + second) * 1000;
}

function clamp(seconds: number): number {
  return Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_SECONDS);
}
