// The `Idempotency-Key` request header (IETF draft "The Idempotency-Key HTTP Header Field"): 1 to
// 255 visible ASCII characters, bare or in the draft's quoted form. Both forms name the same key.

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

const VISIBLE_ASCII = /^[\x21-\x7e]{1,255}$/;

/** The key a header value names, or undefined when it is malformed (two keys joined by a comma included). */
export function parseIdempotencyKey(value: string): string | undefined {
  const quoted = value.length >= 2 && value.startsWith('"') && value.endsWith('"');
  const key = quoted ? value.slice(1, -1) : value;
  return VISIBLE_ASCII.test(key) ? key : undefined;
}
