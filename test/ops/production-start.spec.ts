// `npm run build` then `npm run start:prod`, as the README tells operators: the compiled gateway,
// with the Node flags of the start:prod script, serves the same answers as `npm start`, and GraphiQL
// runs in a real browser from dist/ alone. The only spec that builds (once, before its tests):
// another building dist/ at the same time would race with it.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productionNodeArgs } from '../../bench/lib/processes.ts';
import { startReferenceApi } from '../../src/reference-api/index.ts';
import { artifacts, openChromium, shown, skipBrowserTests } from '../developer/chromium.ts';
import { startGatewayProcess } from '../developer/gateway-process.ts';
import { startMain } from '../support/main-process.ts';

const root = new URL('../../', import.meta.url);
const api = await startReferenceApi();
afterAll(() => api.close());

/** What npm would run for start:prod, with this test's own node binary (the bench reads the script the same way). */
const productionCommand = () => [...productionNodeArgs(), 'dist/main.js'];

describe('npm run build && npm run start:prod', () => {
  beforeAll(() => {
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'pipe' });
  }, 180_000);

  it('puts every file the server reads into dist/: the compiled code and every other file of src/', () => {
    const src = fileURLToPath(new URL('src/', root));
    const others = readdirSync(src, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && !entry.name.endsWith('.ts'))
      .map((entry) => relative(src, join(entry.parentPath, entry.name)));
    expect(others).toContain(join('graphiql', 'bootstrap.browser.js'));
    const dist = fileURLToPath(new URL('dist/', root));
    expect(others.filter((path) => !existsSync(join(dist, path)))).toEqual([]);
    expect(existsSync(join(dist, 'main.js'))).toBe(true);
  });

  it('runs the compiled gateway with the production Node flags and answers like npm start', async () => {
    const flags = productionNodeArgs();
    // The young generation's size, stated (V8's default): what peak RSS under a connection flood turns on (docs/performance.md).
    expect(flags).toContain('--max-semi-space-size=16');
    // The old generation's growth cap (docs/performance.md); a Node whose V8 dropped the flag refuses to start.
    expect(flags).toContain('--heap-growing-percent=100');
    // No allocation-site pretenuring: it sent request objects straight to the old generation at 50 clients (docs/performance.md).
    expect(flags).toContain('--no-allocation-site-pretenuring');

    const main = startMain({ UPSTREAM_URL: api.url }, productionCommand());
    try {
      const { url } = await main.ready;
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${api.keys.demo}` },
        body: JSON.stringify({ query: '{ organizations(first: 2) { totalCount nodes { name } } }' }),
      });
      const result = (await response.json()) as {
        data?: { organizations: { totalCount: number; nodes: { name: string }[] } };
        errors?: unknown;
      };
      expect(result.errors).toBeUndefined();
      expect(result.data?.organizations.nodes).toHaveLength(2);
      expect(result.data?.organizations.totalCount).toBeGreaterThan(0);
    } finally {
      main.child.kill('SIGTERM');
      expect(await main.exited).toBe(0);
    }
  }, 60_000);

  it.skipIf(skipBrowserTests)(
    'serves GraphiQL, which renders in Chromium and runs the example query with the demo key',
    async () => {
      const gateway = await startGatewayProcess({}, productionCommand());
      const browser = await openChromium();
      try {
        const { page } = browser;
        const response = await page.goto(gateway.url);
        expect(response?.status()).toBe(200);
        const queryEditor = page.locator('.graphiql-query-editor');
        await expect.poll(() => shown(queryEditor), { timeout: 20_000 }).toContain('query Dashboard');
        await expect.poll(() => shown(page.locator('.graphiql-editor-tool'))).toContain(`Bearer ${gateway.demoKey}`);
        await page.getByRole('button', { name: /execute query/i }).click();
        await expect.poll(() => shown(page.locator('.graphiql-response')), { timeout: 15_000 }).toContain('Hedgehog Analytics');
        await page.screenshot({ path: join(artifacts, 'graphiql-production-build.png') });
        expect(browser.violations).toEqual([]);
        expect(browser.pageErrors).toEqual([]);
        expect(browser.requests.map((url) => new URL(url).pathname)).toContain('/graphiql/bootstrap.js');
      } finally {
        await browser.close();
        await gateway.stop();
      }
    },
    60_000,
  );
});
