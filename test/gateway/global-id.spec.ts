// Global ids are built by hand (one pass, btoa) for speed; they must stay exactly what the relay
// plugin's encodeGlobalID makes of `<Type>:<encoded parts>`, and decode back to the same parts.
import { encodeGlobalID } from '@pothos/plugin-relay';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeId, globalId, globalIdOf } from '../../src/schema/global-id.ts';

const CASES: [string, (string | number)[]][] = [
  ['Organization', ['0190a3c2-7f1e-4b7a-9c1d-3f5e6a7b8c9d']],
  ['PipelineDestination', ['0190a3c2-7f1e-4b7a-9c1d-3f5e6a7b8c9d', 42]],
  ['Member', ['org', 'a:b', 'ünï cødé/ü?']],
  ['Survey', ['1', '']],
];

describe('global ids', () => {
  it.each(CASES)('%s %j: equals the relay encoding and decodes back to its parts', (typename, parts) => {
    const id = globalIdOf(typename, parts);
    expect(id).toBe(encodeGlobalID(typename, parts.map((part) => encodeURIComponent(String(part))).join(':')));
    expect(globalId(typename, ...parts)).toBe(id);
    expect(decodeId(id)).toEqual({ typename, parts: parts.map(String) });
  });

  it('builds, for any part, what encoding every part by encodeURIComponent builds (plain parts are left as they are)', () => {
    // The parts a global id may carry, and characters around the edges of the plain set [\w.-].
    const edge = fc.constantFrom(...'aZ09_.-/:%+ ~`@[{\u00e9\u017f\u212a'.split(''));
    const part = fc.oneof(fc.uuid(), fc.string({ unit: edge, maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 8 }), fc.nat());
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 3 }), (parts) => {
        expect(globalIdOf('Member', parts)).toBe(encodeGlobalID('Member', parts.map((p) => encodeURIComponent(String(p))).join(':')));
      }),
      { numRuns: 5_000 },
    );
  });
});
