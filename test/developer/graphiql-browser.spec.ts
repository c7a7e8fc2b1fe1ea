// A newcomer's first minutes in a real browser: `npm start` with no configuration, GraphiQL at
// /graphql runs its example query with the demo key, shows the schema's descriptions, and says
// UNAUTHENTICATED without a key. All of it under the page's strict Content-Security-Policy (no
// violation reported) and with no request leaving localhost. Debian's Chromium, driven by
// playwright-core; screenshots go to test-artifacts/. GraphiQL of the production build
// (`npm run start:prod`) is opened in test/ops/production-start.spec.ts, the one spec that builds it:
// two specs building dist/ at once, as vitest runs files, would race.
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifacts, type Browser, openChromium, shown, skipBrowserTests } from './chromium.ts';
import { type GatewayProcess, startGatewayProcess } from './gateway-process.ts';

describe.skipIf(skipBrowserTests)('GraphiQL in Chromium', { timeout: 40_000 }, () => {
  let gateway: GatewayProcess;
  let browser: Browser;
  let page: Page;
  let violations: string[];
  let pageErrors: string[];
  let requests: string[];

  beforeAll(async () => {
    gateway = await startGatewayProcess();
    browser = await openChromium();
    ({ page, violations, pageErrors, requests } = browser);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  it('runs the example query with the demo key and shows the demo data', async () => {
    const response = await page.goto(gateway.url);
    const policy = response?.headers()['content-security-policy'] ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toMatch(/script-src[^;]*unsafe/);

    const queryEditor = page.locator('.graphiql-query-editor');
    await expect.poll(() => shown(queryEditor), { timeout: 20_000 }).toContain('query Dashboard');
    const headersEditor = page.locator('.graphiql-editor-tool');
    await expect.poll(() => shown(headersEditor)).toContain(`Bearer ${gateway.demoKey}`);

    await page.getByRole('button', { name: /execute query/i }).click();
    const result = page.locator('.graphiql-response');
    await expect.poll(() => shown(result), { timeout: 15_000 }).toContain('Hedgehog Analytics');
    await page.screenshot({ path: join(artifacts, 'graphiql-demo-data.png') });

    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('shows the descriptions, with the scope each field needs, in the docs explorer', async () => {
    await page.getByRole('button', { name: /documentation explorer/i }).click();
    await page.locator('.graphiql-doc-explorer').getByText('Query', { exact: true }).first().click();
    const docs = page.locator('.graphiql-doc-explorer');
    await expect.poll(() => shown(docs), { timeout: 10_000 }).toContain('Requires scope organization:read');
    await page.screenshot({ path: join(artifacts, 'graphiql-docs.png') });
    await page.getByRole('button', { name: /documentation explorer/i }).click();
    expect(violations).toEqual([]);
  });

  it('answers UNAUTHENTICATED when the headers carry no key', async () => {
    await page.locator('.graphiql-editor-tool .monaco-editor').filter({ visible: true }).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await expect.poll(() => shown(page.locator('.graphiql-editor-tool'))).not.toContain('Bearer');

    await page.locator('.graphiql-query-editor .monaco-editor').first().click();
    await page.keyboard.press('Control+Enter');
    const result = page.locator('.graphiql-response');
    await expect.poll(() => shown(result), { timeout: 15_000 }).toContain('UNAUTHENTICATED');
    await page.screenshot({ path: join(artifacts, 'graphiql-unauthenticated.png') });

    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('loaded everything from the gateway: no request left localhost, the editor workers came by URL', () => {
    const origin = new URL(gateway.url).origin;
    expect(requests.filter((url) => !url.startsWith(`${origin}/`))).toEqual([]);
    const files = requests.map((url) => new URL(url).pathname);
    expect(files).toEqual(expect.arrayContaining(['/graphiql/graphiql.js', '/graphiql/graphiql.css', '/graphiql/bootstrap.js']));
    expect(files.some((file) => /^\/graphiql\/\w+\.worker\.js$/.test(file))).toBe(true);
  });

  it('runs a subscription over SSE and shows its first event, then the change a mutation made', async () => {
    const send = async (query: string) => {
      const response = await fetch(gateway.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.demoKey}` },
        body: JSON.stringify({ query }),
      });
      return ((await response.json()) as { data: Record<string, unknown> }).data;
    };
    const data = (await send('{ organizations(first: 1) { nodes { batchExports(first: 1) { nodes { id name paused } } } } }')) as {
      organizations: { nodes: { batchExports: { nodes: { id: string; name: string; paused: boolean }[] } }[] };
    };
    const watched = data.organizations.nodes[0]?.batchExports.nodes[0] as { id: string; name: string; paused: boolean };

    // The previous test emptied the headers: the key goes back in, then the subscription replaces the query.
    await page.locator('.graphiql-editor-tool .monaco-editor').filter({ visible: true }).click();
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${gateway.demoKey}` }));
    await page.locator('.graphiql-query-editor .monaco-editor').first().click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(`subscription Watch { batchExport(id: "${watched.id}") { name paused } }`);
    // GraphiQL picks the operation name from the editor after a debounce: run once it shows the new one.
    await expect.poll(() => shown(page.locator('.graphiql-query-editor')), { timeout: 10_000 }).toContain('subscription Watch');
    await expect.poll(() => shown(page.locator('.graphiql-query-editor')), { timeout: 10_000 }).not.toContain('Dashboard');
    await page.waitForTimeout(300);
    await page.keyboard.press('Control+Enter');

    const result = page.locator('.graphiql-response');
    await expect.poll(() => shown(result), { timeout: 15_000 }).toContain(watched.name);
    expect(await shown(result)).toContain(`"paused": ${watched.paused}`);
    const mutation = watched.paused ? 'unpauseBatchExport' : 'pauseBatchExport';
    await send(`mutation { ${mutation}(input: { id: "${watched.id}" }) { __typename } }`);
    await expect.poll(() => shown(result), { timeout: 10_000 }).toContain(`"paused": ${!watched.paused}`);
    await page.screenshot({ path: join(artifacts, 'graphiql-subscription.png') });

    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
