// docs/configuration.md is the settings table operators read; DEFAULTS in src/config.ts is what the
// gateway does when a setting is unset. Every setting has exactly one row, in the same order, and
// each row's default is the code's: a default changed on one side only fails here. Likewise every
// metric the gateway registers is named in docs/operations.md.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseUpstreamBudget } from '../../src/budget-setting.ts';
import { DEFAULTS } from '../../src/config.ts';
import { createGateway } from '../../src/gateway.ts';
import { captureLogger } from './support.ts';

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

describe('docs/operations.md', () => {
  it('names every metric a gateway with every feature on registers', async () => {
    const metricsPage = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
    const gateway = createGateway({
      upstreamUrl: 'http://127.0.0.1:9/',
      logger: captureLogger().logger,
      cache: { store: 'memory' },
      upstreamBudget: parseUpstreamBudget('480/minute'),
    });
    try {
      const names = (await gateway.metrics.registry.getMetricsAsJSON()).map((metric) => metric.name);
      expect(names.length).toBeGreaterThan(20);
      expect(names.filter((name) => !metricsPage.includes(`\`${name}\``))).toEqual([]);
    } finally {
      await gateway.close();
    }
  });
});
