// The redaction of upstream text, as a property: whatever the upstream writes around the caller's
// key (raw, percent-encoded, JSON-escaped, as a bearer token, inside a URL, on any line), what is
// left holds no form of the key, is one line, and is bounded. Over HTTP: test/ops/redaction.spec.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keyForms, MAX_UPSTREAM_TEXT_LENGTH, upstreamTextRedaction } from '../../src/upstream/redact.ts';

const UPSTREAM = 'https://api.upstream.example:8443';
const redactorFor = upstreamTextRedaction(UPSTREAM);
const LINE_BREAK = /[\n\r\u0085\u2028\u2029]/;

const lowerHex = (text: string) => text.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
/** The forms a caller's key may take in upstream text; the property checks each of them. */
const FORMS: ((key: string) => string)[] = [
  (key) => key,
  (key) => encodeURIComponent(key),
  (key) => lowerHex(encodeURIComponent(key)),
  (key) => encodeURI(key),
  (key) => new URLSearchParams({ token: key }).toString().slice('token='.length),
  (key) => JSON.stringify(key).slice(1, -1),
];
const EMBEDDINGS: ((key: string) => string)[] = [
  ...FORMS,
  (key) => `Bearer ${key}`,
  (key) => `Authorization: Bearer ${key}`,
  (key) => `postgres://admin:${key}@db.internal:5432/app`,
  (key) => `https://user:${encodeURIComponent(key)}@elsewhere.example/x?key=${encodeURIComponent(key)}`,
  (key) => `${UPSTREAM}/api/organizations/?token=${key}`,
  (key) => `Traceback (most recent call last):\n  File "/srv/app.py", line 3, in <module>\n    check(${key})`,
];

/**
 * Visible ASCII, as HEADER_TOKEN in src/upstream/transport/transport.ts admits, 8 to 80 characters; some made of
 * pieces of the placeholders, which a redacted text could otherwise spell out.
 */
const keys = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)), minLength: 8, maxLength: 80 }),
  fc
    .array(fc.constantFrom('[', ']', 'redacted', 'ted]', 'd]', '[url]', 'url', 'x'), { minLength: 1, maxLength: 12 })
    .map((pieces) => pieces.join(''))
    .filter((key) => key.length >= 8 && key.length <= 80),
);

/** Arbitrary text, line breaks and all, with the key embedded in any of its forms, in pieces and whole. */
const textAround = (key: string) =>
  fc
    .array(
      fc.oneof(
        fc.string({ unit: 'binary', maxLength: 40 }),
        fc.constantFrom('\n', '\r\n', '\u2028', ' ', '%', ':', '//', '@', UPSTREAM, 'api.upstream.example'),
        fc.constantFrom(...EMBEDDINGS).map((embed) => embed(key)),
        fc.nat(key.length).map((cut) => key.slice(0, cut)),
        fc.nat(key.length).map((cut) => key.slice(cut)),
      ),
      { maxLength: 12 },
    )
    .map((pieces) => pieces.join(''));

describe('upstream text redaction', () => {
  it('leaves no form of the key, and keeps one bounded line', () => {
    fc.assert(
      fc.property(
        keys.chain((key) => fc.tuple(fc.constant(key), textAround(key))),
        ([key, text]) => {
          const out = redactorFor(key)(text);
          for (const form of FORMS) expect(out).not.toContain(form(key));
          expect(out).not.toMatch(LINE_BREAK);
          expect(out.length).toBeLessThanOrEqual(MAX_UPSTREAM_TEXT_LENGTH);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('redacts every form keyForms names, even when the key looks like a placeholder', () => {
    // A key that overlaps the placeholder text could reappear next to it: the text is then dropped.
    for (const key of ['redacted', 'ted]abcd', '[redacted]', 'url]]]]]', 'd]]]]]]]']) {
      const redact = redactorFor(key);
      for (const text of [key, `${key}abcd`, `${key}]]]]]]]`, `see ${encodeURIComponent(key)} there`]) {
        const out = redact(text);
        for (const form of keyForms(key)) expect(out).not.toContain(form);
      }
    }
  });

  it('keeps ordinary upstream text as it is', () => {
    const redact = redactorFor('phx_0123456789abcdef');
    for (const text of [
      'This field is required.',
      "API key missing required scope 'organization:read'",
      'Request was throttled. Expected available in 7 seconds.',
    ]) {
      expect(redact(text)).toBe(text);
    }
  });

  it('keeps the first non-blank line of a stack trace, cut to the bound', () => {
    const redact = redactorFor('phx_0123456789abcdef');
    expect(redact('\n  Traceback (most recent call last):\n  File "/srv/app.py", line 3')).toBe('Traceback (most recent call last):');
    const long = redact(`${'x'.repeat(1000)}\nsecond line`);
    expect(long).toHaveLength(MAX_UPSTREAM_TEXT_LENGTH);
    expect(long.endsWith('…')).toBe(true);
    expect(redact('tab\there\u0007bell')).toBe('tab here bell');
  });

  it('replaces URLs, the upstream origin and host, and bearer tokens', () => {
    const redact = redactorFor('phx_0123456789abcdef');
    expect(redact('could not connect to postgres://admin:s3cret@db.internal:5432/app (timeout)')).toBe(
      'could not connect to [url] (timeout)',
    );
    expect(redact(`see ${UPSTREAM}/api/x/ or API.UPSTREAM.EXAMPLE:8443 or api.upstream.example`)).toBe(
      'see [url] or [redacted] or [redacted]',
    );
    expect(redact('header was Bearer someone_elses_token, rejected')).toBe('header was [redacted] rejected');
    expect(redact('key phx_0123456789abcdef and phx_0123456789abcdef%21 are bad')).toBe('key [redacted] and [redacted]%21 are bad');
  });

  it('is linear: a megabyte of URL-like text takes milliseconds', () => {
    const redact = redactorFor('phx_0123456789abcdef');
    const started = performance.now();
    redact('a.'.repeat(500_000));
    redact(`${'a'.repeat(1_000_000)}://x`);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
