// isUuid: a dashed UUID in either case, and nothing else, whatever the value.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isUuid } from '../../src/wire/uuid.ts';

/** Characters around the edges of what is allowed: hex digits of both cases, the dash, their neighbours, non-ASCII. */
const nearUuidChar = fc.constantFrom(...'0189aAfFgG-_/:@`{ \u00e9\u0130\u212a\ufb00\ud83d'.split(''));
/** A UUID with one code unit replaced, inserted or removed, or its case changed. */
const mutatedUuid = fc
  .tuple(fc.uuid(), fc.nat({ max: 36 }), nearUuidChar, fc.constantFrom('replace', 'insert', 'remove', 'upper'))
  .map(([uuid, at, char, how]) => {
    if (how === 'replace') return uuid.slice(0, at) + char + uuid.slice(at + 1);
    if (how === 'insert') return uuid.slice(0, at) + char + uuid.slice(at);
    if (how === 'remove') return uuid.slice(0, at) + uuid.slice(at + 1);
    return uuid.toUpperCase();
  });

/** Whether `value` is 8-4-4-4-12 hex digits, told by splitting rather than by a pattern. */
function isDashedHex(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  const groups = value.split('-');
  return (
    groups.length === 5 &&
    groups.every((group, i) => group.length === [8, 4, 4, 4, 12][i] && [...group].every((char) => '0123456789abcdefABCDEF'.includes(char)))
  );
}

describe('isUuid', () => {
  it('accepts every UUID, in either case', () => {
    fc.assert(
      fc.property(fc.uuid(), (uuid) => {
        expect(isUuid(uuid)).toBe(true);
        expect(isUuid(uuid.toUpperCase())).toBe(true);
      }),
    );
  });

  it('refuses a UUID with one code unit replaced, inserted or removed unless it is still 8-4-4-4-12 hex digits, and any other value', () => {
    fc.assert(
      fc.property(fc.oneof(mutatedUuid, fc.string({ unit: nearUuidChar, minLength: 34, maxLength: 38 }), fc.anything()), (value) => {
        expect(isUuid(value)).toBe(isDashedHex(value));
      }),
      { numRuns: 5_000 },
    );
  });

  it('accepts UUIDs in either case and refuses the usual near misses', () => {
    expect(isUuid('0f8fad5b-d9cb-469f-a165-70867728950e')).toBe(true);
    expect(isUuid('0F8FAD5B-D9CB-469F-A165-70867728950E')).toBe(true);
    expect(isUuid('0f8fad5bd9cb469fa16570867728950e')).toBe(false); // no dashes
    expect(isUuid('{0f8fad5b-d9cb-469f-a165-70867728950e}')).toBe(false);
    expect(isUuid('0f8fad5b-d9cb-469f-a165-70867728950g')).toBe(false);
    expect(isUuid('0f8fad5b-d9cb-469f-a165-70867728950e\n')).toBe(false);
    expect(isUuid('0f8fad5b-d9cb-469f-a16-570867728950e')).toBe(false); // a dash moved
    expect(isUuid(null)).toBe(false);
    expect(isUuid(12345)).toBe(false);
  });
});
