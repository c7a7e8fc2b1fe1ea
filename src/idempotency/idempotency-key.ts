// The `Idempotency-Key` request header (IETF draft "The Idempotency-Key HTTP Header Field"): 1 to
// 255 visible ASCII characters but the comma, bare or in the draft's quoted form. Both forms name
// the same key. A comma would make `a,b` one key here and two to any proxy that joins repeated headers.

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** Visible ASCII (0x21-0x7e) without the comma (0x2c). */
const VISIBLE_ASCII_BUT_COMMA = /^[\x21-\x2b\x2d-\x7e]{1,255}$/;

/** The key a header value names, or undefined when it is malformed (two keys joined by a comma included). */
export function parseIdempotencyKey(value: string): string | undefined {
  const quoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"');
  const key = quoted ? value.slice(1, -1) : value;
  return VISIBLE_ASCII_BUT_COMMA.test(key) ? key : undefined;
}
