// The memory store's bounds (entries and bytes), its time to live, its generations, and the caller
// tags every store is keyed by.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callerTag } from '../../src/caller.ts';
import { createMemoryStore } from '../../src/store/memory-store.ts';
import { CACHE_DEFAULTS, MEMORY_STORE_DEFAULTS } from '../support/defaults.ts';
import { forbiddenForms } from './support.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the memory store', () => {
  it('keeps at most CACHE_MAX_ENTRIES answers, dropping the least recently used', async () => {
    const store = createMemoryStore({ ...MEMORY_STORE_DEFAULTS, answers: { ...CACHE_DEFAULTS, maxEntries: 3 } });
    for (const id of ['a', 'b', 'c']) await store.writeEntries('tag', [{ id, value: id, ttlMs: 60_000 }]);
    await store.readEntries('tag', ['a']); // a is now more recent than b
    await store.writeEntries('tag', [{ id: 'd', value: 'd', ttlMs: 60_000 }]);
    expect(await store.readEntries('tag', ['a', 'b', 'c', 'd'])).toEqual(['a', null, 'c', 'd']);
  });

  it('keeps at most CACHE_MAX_BYTES of answers and their ids, whatever their sizes', () => {
    fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 600 }), { minLength: 1, maxLength: 30 }), async (sizes) => {
        const store = createMemoryStore({ ...MEMORY_STORE_DEFAULTS, answers: { maxBytes: 1024, maxEntries: 1000 } });
        const ids = sizes.map((_, i) => `id${i}`);
        for (const [i, size] of sizes.entries())
          await store.writeEntries('t', [{ id: ids[i] as string, value: 'x'.repeat(size), ttlMs: 60_000 }]);
        const kept = (await store.readEntries('t', ids)).map((value, i) => (value === null ? 0 : value.length + `t ${ids[i]}`.length));
        expect(kept.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1024);
        // The newest answer always fits (each is under the bound), so it is kept.
        expect(kept.at(-1)).toBeGreaterThan(0);
      }),
      { numRuns: 50 },
    );
  });

  it('forgets an answer after its time to live', async () => {
    const store = createMemoryStore(MEMORY_STORE_DEFAULTS);
    await store.writeEntries('tag', [{ id: 'short', value: 'v', ttlMs: 40 }]);
    await store.writeEntries('tag', [{ id: 'long', value: 'v', ttlMs: 60_000 }]);
    expect(await store.readEntries('tag', ['short', 'long'])).toEqual(['v', 'v']);
    await sleep(80);
    expect(await store.readEntries('tag', ['short', 'long'])).toEqual([null, 'v']);
  });

  it('keeps answers of one tag from another', async () => {
    const store = createMemoryStore(MEMORY_STORE_DEFAULTS);
    await store.writeEntries('one', [{ id: '/api/organizations/', value: 'mine', ttlMs: 60_000 }]);
    expect(await store.readEntries('two', ['/api/organizations/'])).toEqual([null]);
  });

  it('gives a scope a generation it never had before on every bump', async () => {
    const store = createMemoryStore(MEMORY_STORE_DEFAULTS);
    expect(await store.readGenerations(['org:1'])).toEqual([null]);
    const seen = new Set<string | null>([null]);
    for (let i = 0; i < 50; i += 1) {
      await store.bumpGenerations(['org:1', 'all']);
      const [org, all] = await store.readGenerations(['org:1', 'all']);
      expect(seen.has(org as string)).toBe(false);
      expect(all).not.toBe(org);
      seen.add(org as string);
    }
  });
});

describe('caller tags', () => {
  it('are one 128-bit base64url tag per key and secret, and different for different keys or secrets', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), fc.string({ minLength: 16 }), (a, b, secret) => {
        const tag = callerTag(secret, a);
        expect(tag).toMatch(/^[\w-]{22}$/);
        expect(callerTag(secret, a)).toBe(tag);
        if (a !== b) expect(callerTag(secret, b)).not.toBe(tag);
        expect(callerTag(`${secret}x`, a)).not.toBe(tag);
      }),
    );
  });

  it('hold neither the key nor any plain digest of it', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^phx_[A-Za-z0-9]{20,47}$/), fc.string({ minLength: 16 }), (key, secret) => {
        const tag = callerTag(secret, key);
        for (const form of forbiddenForms(key)) {
          expect(tag.includes(form) || form.startsWith(tag)).toBe(false);
        }
      }),
    );
  });
});
