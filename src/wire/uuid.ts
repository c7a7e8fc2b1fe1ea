// The REST interface's UUIDs (organizations, batch exports, domains, ...), in their dashed form:
// what the gateway accepts in global ids and representations, and checks in upstream answers.

/** 0 for a hex digit (either case), 1 for every other UTF-16 code unit. */
const NOT_HEX = new Uint8Array(0x10000).fill(1);
for (const digit of '0123456789abcdefABCDEF') NOT_HEX[digit.charCodeAt(0)] = 0;
const DASH = 0x2d;

/** 0 when every code unit of value[from, to) is a hex digit. */
function notHexIn(value: string, from: number, to: number): number {
  let found = 0;
  for (let i = from; i < to; i += 1) found |= NOT_HEX[value.charCodeAt(i)] as number;
  return found;
}

/**
 * A dashed UUID, in either case: what /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
 * matches (a property test holds it to that pattern). A scan rather than that expression: it runs
 * for every record id of every upstream page (~230 per dashboard), and the record checks that call
 * it took ~26 µs per dashboard with the scan against ~40-45 with the expression, its call and match
 * bookkeeping. Global
 * ids' simpler `^[\w.-]*$` stays a regular expression: as a scan it cost more.
 */
export function isUuid(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length === 36 &&
    value.charCodeAt(8) === DASH &&
    value.charCodeAt(13) === DASH &&
    value.charCodeAt(18) === DASH &&
    value.charCodeAt(23) === DASH &&
    (notHexIn(value, 0, 8) | notHexIn(value, 9, 13) | notHexIn(value, 14, 18) | notHexIn(value, 19, 23) | notHexIn(value, 24, 36)) === 0
  );
}
