// Debian's Chromium, driven by playwright-core, for the tests that open GraphiQL in a real browser:
// a fresh profile, and a record of every request, page error and Content-Security-Policy violation.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, chromium, type Locator, type Page } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Where screenshots go. */
export const artifacts = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

/** `SKIP_BROWSER_TESTS=1` skips the browser tests (a machine without Chromium). */
export const skipBrowserTests = process.env.SKIP_BROWSER_TESTS === '1';

/** What a locator shows, with the editor's non-breaking spaces and line breaks as single spaces. */
export const shown = async (locator: Locator) => ((await locator.textContent()) ?? '').replace(/\s+/g, ' ');

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Content-Security-Policy violations the page reported. */
  violations: string[];
  pageErrors: string[];
  /** Every URL the browser requested. */
  requests: string[];
  close(): Promise<void>;
}

export async function openChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `No Chromium at ${CHROMIUM}. Install it (Debian: apt-get install -y chromium; .ci/run does), ` +
        'point CHROMIUM_PATH at one, or set SKIP_BROWSER_TESTS=1 to skip the browser tests.',
    );
  }
  mkdirSync(artifacts, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'graphiql-chromium-'));
  const violations: string[] = [];
  const pageErrors: string[] = [];
  const requests: string[] = [];
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  context.on('request', (request) => requests.push(request.url()));
  await context.exposeFunction('reportCspViolation', (text: string) => violations.push(text));
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { reportCspViolation(text: string): void }).reportCspViolation;
      report(`${event.effectiveDirective} blocked ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`);
    });
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return {
    context,
    page,
    violations,
    pageErrors,
    requests,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
