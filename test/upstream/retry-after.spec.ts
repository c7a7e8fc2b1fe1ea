// Retry-After parsed strictly (RFC 9110: delta-seconds or an HTTP-date in its three forms), clamped
// to MAX_RETRY_AFTER_SECONDS, and the live service's throttling text: properties over the input
// space, then the values that used to slip through.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_RETRY_AFTER_SECONDS,
  parseHttpDate,
  parseRetryAfter,
  retryAfterFromDetail,
} from '../../src/upstream/resilience/retry-after.ts';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const clock = (d: Date) => `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;

/** The three forms a recipient must accept, written independently of the parser. */
const imfFixdate = (d: Date) => d.toUTCString(); // V8 writes exactly IMF-fixdate, years padded to 4 digits
const rfc850 = (d: Date) =>
  `${LONG_DAYS[d.getUTCDay()]}, ${pad(d.getUTCDate())}-${MONTHS[d.getUTCMonth()]}-${pad(d.getUTCFullYear() % 100)} ${clock(d)} GMT`;
const asctime = (d: Date) =>
  `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${clock(d)} ${pad(d.getUTCFullYear(), 4)}`;

/** Whole seconds (HTTP dates have no fractions) between the years 0 and 9999. */
const anyDate = fc
  .date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
  .map((d) => new Date(Math.floor(d.getTime() / 1000) * 1000));

/** Anything a header could carry: noise, numbers of every shape, lists, and real and broken dates. */
const headerValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.stringMatching(/^[ \t]*[+-]?\d{0,400}(\.\d*)?(e[+-]?\d+)?[ \t]*$/),
  fc.double().map(String),
  fc.array(fc.nat().map(String), { minLength: 2, maxLength: 3 }).map((parts) => parts.join(', ')),
  anyDate.chain((d) => fc.constantFrom(imfFixdate(d), rfc850(d), asctime(d))),
  anyDate.map((d) => imfFixdate(d).toLowerCase()),
  anyDate.chain((d) => fc.nat({ max: 28 }).map((at) => imfFixdate(d).slice(0, at) + imfFixdate(d).slice(at + 1))),
);

const isWholeSeconds = (value: number | undefined) =>
  value === undefined || (Number.isInteger(value) && value >= 0 && value <= MAX_RETRY_AFTER_SECONDS);

describe('parseRetryAfter, as properties', () => {
  it('is absent or whole seconds from 0 to the clamp: never NaN, negative or larger', () => {
    fc.assert(
      fc.property(headerValue, fc.integer({ min: 0, max: 4e12 }), (value, now) => isWholeSeconds(parseRetryAfter(value, now))),
      { numRuns: 2000 },
    );
  });

  it('reads delta-seconds (1*DIGIT, with optional whitespace around) as itself up to the clamp', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.constantFrom('', ' ', '\t', '  '), (seconds, space) => {
        const expected = seconds > BigInt(MAX_RETRY_AFTER_SECONDS) ? MAX_RETRY_AFTER_SECONDS : Number(seconds);
        return parseRetryAfter(`${space}${seconds}${space}`) === expected;
      }),
    );
  });

  it('has no other number syntax: a sign, a fraction, an exponent or a list is absent', () => {
    fc.assert(
      fc.property(fc.oneof(fc.double().map(String), fc.stringMatching(/^[+-]\d+$|^\d+(\.\d+|e\d+|, ?\d+)$/)), (text) => {
        const expected = /^\d+$/.test(text) ? Math.min(Number(text), MAX_RETRY_AFTER_SECONDS) : undefined;
        return parseRetryAfter(text) === expected;
      }),
    );
  });

  it('round-trips IMF-fixdate, RFC 850 and asctime dates to the second', () => {
    fc.assert(
      fc.property(anyDate, (date) => {
        // RFC 850 has a two-digit year: only dates within 50 years of now are unambiguous.
        const twoDigitYearFits = Math.abs(date.getUTCFullYear() - new Date(NOW).getUTCFullYear()) < 50;
        return (
          parseHttpDate(imfFixdate(date), NOW) === date.getTime() &&
          parseHttpDate(asctime(date), NOW) === date.getTime() &&
          (!twoDigitYearFits || parseHttpDate(rfc850(date), NOW) === date.getTime())
        );
      }),
    );
  });

  it('turns a date into the seconds until it, rounded up: a past date is 0, a far one the clamp', () => {
    fc.assert(
      fc.property(fc.integer({ min: -10_000_000, max: 10_000_000 }), fc.integer({ min: 0, max: 999 }), (seconds, extraMs) => {
        const date = new Date(NOW + seconds * 1000);
        const now = NOW - extraMs; // the date is `seconds` whole seconds plus `extraMs` ahead
        const expected = Math.min(Math.max(seconds + (extraMs > 0 ? 1 : 0), 0), MAX_RETRY_AFTER_SECONDS);
        return parseRetryAfter(imfFixdate(date), now) === expected && parseRetryAfter(asctime(date), now) === expected;
      }),
    );
  });
});

describe('parseRetryAfter, by example', () => {
  it.each([
    ['-1'],
    ['1.5'],
    ['5, 10'],
    ['1e+23'],
    ['+5'],
    ['0x10'],
    ['５'], // a full-width digit is not a DIGIT
    ['in 5 seconds'],
    ['Sat, 21 Nov 2026 12:00:05 UTC'], // only GMT
    ['sat, 21 nov 2026 12:00:05 gmt'],
    ['Sat, 31 Feb 2026 12:00:05 GMT'], // no such day
    ['Sat, 21 Nov 2026 24:00:05 GMT'],
    ['Sat, 21 Nov 2026 12:00:05 GMT, Sat, 21 Nov 2026 12:00:06 GMT'],
    ['2026-11-21T12:00:05Z'], // ISO 8601 is not an HTTP-date
    ['Saturday, 21 Nov 2026 12:00:05 GMT'],
    [''],
    ['   '],
  ])('%j is absent', (value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });

  it('reads the three date forms, and the values that used to pass through unclamped', () => {
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:05 GMT', NOW)).toBe(5);
    expect(parseRetryAfter('Saturday, 21-Nov-26 12:00:05 GMT', NOW)).toBe(5);
    expect(parseRetryAfter('Sat Nov 21 12:00:05 2026', NOW)).toBe(5);
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', NOW)).toBe(0); // the past is now
    expect(parseRetryAfter('Sat, 21 Nov 2076 12:00:00 GMT', NOW)).toBe(MAX_RETRY_AFTER_SECONDS); // decades ahead
    expect(parseRetryAfter('100000000000000000000000', NOW)).toBe(MAX_RETRY_AFTER_SECONDS);
    expect(parseRetryAfter('0', NOW)).toBe(0);
    expect(parseRetryAfter(' 120 ', NOW)).toBe(120);
  });

  it('reads an RFC 850 year more than 50 years ahead as the century before', () => {
    expect(parseHttpDate('Saturday, 01-Jan-77 00:00:00 GMT', NOW)).toBe(Date.UTC(1977, 0, 1)); // 2077 is 51 years ahead
    expect(parseHttpDate('Wednesday, 01-Jan-76 00:00:00 GMT', NOW)).toBe(Date.UTC(2076, 0, 1));
    expect(parseHttpDate('Saturday, 01-Jan-26 00:00:00 GMT', NOW)).toBe(Date.UTC(2026, 0, 1));
  });

  it('takes one header value; the same header sent twice says nothing usable', () => {
    expect(parseRetryAfter(['7'], NOW)).toBe(7);
    expect(parseRetryAfter(['7', '8'], NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });

  it('clamps to one hour', () => {
    expect(MAX_RETRY_AFTER_SECONDS).toBe(3600);
  });
});

describe("retryAfterFromDetail: the live service's throttling text", () => {
  it('reads the whole seconds it names, up to the clamp', () => {
    fc.assert(
      fc.property(fc.nat(), (seconds) => {
        const unit = seconds === 1 ? 'second' : 'seconds';
        return (
          retryAfterFromDetail(`Request was throttled. Expected available in ${seconds} ${unit}.`) ===
          Math.min(seconds, MAX_RETRY_AFTER_SECONDS)
        );
      }),
    );
  });

  it.each([
    ['Request was throttled. Expected available in 1.5 seconds.'],
    ['Request was throttled. Expected available in -3 seconds.'],
    ['Request was throttled.'],
    ['available in 12 seconds'],
    [undefined],
  ])('%j says nothing usable', (detail) => {
    expect(retryAfterFromDetail(detail)).toBeUndefined();
  });
});
