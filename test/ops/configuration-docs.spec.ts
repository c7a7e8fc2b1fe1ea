// docs/configuration.md's settings tables are printed from the declaration in
// src/config/settings.ts (`npm run config:docs`): a setting added, removed or changed on one side
// only fails here. Likewise every metric the gateway registers is named in docs/operations.md.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withSettingsTables } from '../../src/config/docs.ts';
import { loadConfig } from '../../src/config/index.ts';
import { SETTINGS } from '../../src/config/settings.ts';
import { parseUpstreamBudget } from '../../src/config/upstream-budget.ts';
import { createGateway } from '../../src/gateway.ts';
import { captureLogger } from './support.ts';

const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
/** The rows `| \`NAME\` | default | accepts | meaning |`: the variable and its default cell. */
const rows = [...page.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]*) \|/gm)].map(([, name, cell]) => ({
  name: name as string,
  cell: (cell ?? '').trim(),
}));

describe('docs/configuration.md', () => {
  it('holds the tables printed from the declaration of every setting', () => {
    expect(page).toBe(withSettingsTables(page));
  });

  it('has one row per declared setting, in the order of the declaration', () => {
    expect(rows.map((row) => row.name)).toEqual(Object.keys(SETTINGS));
  });

  it.each(rows)('gives $name the default loadConfig applies when it is unset', ({ name, cell }) => {
    const value: unknown = SETTINGS[name as keyof typeof SETTINGS].default;
    const documented = /^`([^`]*)`/.exec(cell)?.[1];
    if (value === undefined) expect(cell).toMatch(/^unset\b/);
    else expect(documented).toBe(String(value));
  });

  it('names defaults loadConfig really applies (a few, spelled out)', () => {
    expect(page).toMatch(/^\| `PORT` \| `4000` \|/m);
    expect(loadConfig({}).port).toBe(4000);
    expect(page).toMatch(/^\| `MAX_UPSTREAM_RESPONSE_BYTES` \| `8388608` \(8 MiB\) \|/m);
    expect(loadConfig({}).maxUpstreamResponseBytes).toBe(8 * 1024 * 1024);
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
