// docs/configuration.md is the settings table operators read; DEFAULTS in src/config.ts is what the
// gateway does when a setting is unset. Every setting has exactly one row, in the same order, and
// each row's default is the code's: a default changed on one side only fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config.ts';

const table = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
/** The rows `| \`NAME\` | default | meaning |`: the variable and its default cell. */
const rows = [...table.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]*) \|/gm)].map(([, name, cell]) => ({
  name: name as keyof typeof DEFAULTS,
  cell: (cell ?? '').trim(),
}));

describe('docs/configuration.md', () => {
  it('has one row per setting of src/config.ts, in the same order', () => {
    expect(rows.map((row) => row.name)).toEqual(Object.keys(DEFAULTS));
  });

  it.each(rows)("gives $name the code's default", ({ name, cell }) => {
    const value: unknown = DEFAULTS[name];
    const documented = /^`([^`]*)`/.exec(cell)?.[1];
    if (value === undefined) {
      expect(cell).toMatch(/^unset\b/);
      expect(documented).toBeUndefined();
    } else {
      expect(documented).toBe(String(value));
    }
  });
});
