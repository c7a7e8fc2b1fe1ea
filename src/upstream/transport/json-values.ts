// How many values an upstream answer holds and how deep they nest, checked before JSON.parse:
// parsing costs per value, not per byte, and more per value the deeper it nests. An answer under
// MAX_UPSTREAM_RESPONSE_BYTES made of millions of tiny values stalls the event loop for seconds
// (Node 20: 7.4 MiB of `[[[…]]]` 3.9 million deep, or of `[{},{},…]`, takes 1.3-4.4 s and ~100-220 MB
// of heap; `[0,0,…]` 0.4-0.9 s), while 8 MiB of real records parses in ~20 ms.

/**
 * Answers this long or shorter are not counted (not a setting): they hold at most ~32,000 values,
 * parsed in ~10 ms at worst, and every answer of a dashboard is far shorter. Above it the count
 * costs ~5-20% of the parse for text-heavy records (strings are skipped with indexOf), up to ~55%
 * for number-heavy ones.
 */
export const COUNT_VALUES_ABOVE_CHARS = 64 * 1024;

/**
 * Deepest nesting of arrays and objects in an answer that is counted (not a setting): 512 is twice
 * the deepest `JSON` value the gateway can serve (MAX_JSON_DEPTH is at most 256) with its page and
 * record around it. Nesting costs more per value the deeper it goes (100,000 values in one nest
 * parse in 26-150 ms, side by side in ~12 ms).
 */
export const MAX_ANSWER_DEPTH = 512;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether `text` holds at most `max` values, counted as its arrays and objects plus the commas
 * between items (outside strings), nested at most MAX_ANSWER_DEPTH deep. Stops at the first value
 * past either. Malformed JSON is left to JSON.parse.
 */
export function withinJsonValues(text: string, max: number): boolean {
  if (text.length <= COUNT_VALUES_ABOVE_CHARS) return true;
  let values = 0;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) return true;
    } else if (char === COMMA) {
      if (++values > max) return false;
    } else if (char === OPEN_ARRAY || char === OPEN_OBJECT) {
      if (++values > max || ++depth > MAX_ANSWER_DEPTH) return false;
    } else if (char === CLOSE_ARRAY || char === CLOSE_OBJECT) {
      depth -= 1;
    }
  }
  return true;
}

/** The index of the quote that closes the string opened at `open` (one not escaped), or -1. */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return at;
  }
}
