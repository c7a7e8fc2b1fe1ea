// The one place where upstream text is made safe to show: the transport runs every string of an
// error answer (detail, code, attr, type) through here once, when the answer becomes an
// UpstreamError, so nothing downstream (callers, logs) ever holds the raw text.
//
// In order: the caller's key in every form a URL or form encoder gives it, and any `Bearer <token>`;
// any URL (`scheme://…`, credentials and all); the upstream's own origin and host names. Then only
// the first non-blank line is kept (a stack trace's first line), other control characters become
// spaces, and the text is cut to MAX_UPSTREAM_TEXT_LENGTH. Every step is linear in the text's length.

import { truncate } from '../truncate.ts';

const REDACTED = '[redacted]';
const URL_REDACTED = '[url]';
/** What is left of an upstream text at most, in UTF-16 code units. */
export const MAX_UPSTREAM_TEXT_LENGTH = 300;

/** Redacts one upstream string for one call (its key). */
export type UpstreamTextRedactor = (text: string) => string;

/** The first line with something on it, from its first visible character (a line ends at any Unicode line break). */
const FIRST_LINE = /\S[^\n\r\u0085\u2028\u2029]*/;
/** C0 and C1 controls, DEL included (Unicode category Cc). */
const CONTROL_CHARACTERS = /\p{Cc}/gu;
const BEARER_TOKEN = /\bBearer\s+\S+/gi;
// Starts only where a run of scheme characters starts (the look-behind), so a long run without
// `://` is scanned once, not once per character.
const ANY_URL = /(?<![\w+.-])[\w+.-]*:\/\/[^\s"'<>`]*/g;

/** Built once per upstream (its names never change); call the result with each call's key. */
export function upstreamTextRedaction(upstreamOrigin: string): (key: string) => UpstreamTextRedactor {
  const upstreamNames = new RegExp(namesOf(upstreamOrigin).map(escapeRegExp).join('|'), 'gi');
  return (key) => {
    const forms = keyForms(key);
    return (text) => {
      let out = FIRST_LINE.exec(text)?.[0] ?? '';
      for (const form of forms) out = out.split(form).join(REDACTED);
      out = out.replace(BEARER_TOKEN, REDACTED).replace(ANY_URL, URL_REDACTED).replace(upstreamNames, REDACTED);
      out = truncate(out.replace(CONTROL_CHARACTERS, ' ').trimEnd(), MAX_UPSTREAM_TEXT_LENGTH);
      // Only a key that overlaps a placeholder could still show (e.g. `ted]abcd` before `abcd`):
      // then nothing of the text is kept.
      return forms.some((form) => out.includes(form)) ? '' : out;
    };
  };
}

/**
 * The key as it appears raw, escaped inside a JSON string, or percent-encoded by
 * encodeURIComponent, encodeURI or a form encoder (URLSearchParams) with upper- or lower-case hex
 * digits. Longest first, so no form is half-replaced by a shorter one.
 */
export function keyForms(key: string): string[] {
  const encoded = [encodeURIComponent(key), encodeURI(key), new URLSearchParams({ k: key }).toString().slice(2)];
  const lowerHex = encoded.map((form) => form.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()));
  const forms = new Set([key, JSON.stringify(key).slice(1, -1), ...encoded, ...lowerHex]);
  return [...forms].filter((form) => form !== '').sort((a, b) => b.length - a.length);
}

/**
 * Where the upstream lives: its origin, `host[:port]`, and the bare hostname unless it could be an
 * ordinary word (`api` could be; `db.internal` or `127.0.0.1` cannot).
 */
function namesOf(origin: string): string[] {
  const { host, hostname } = new URL(origin);
  return /[.:[]/.test(hostname) ? [origin, host, hostname] : [origin, host];
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
