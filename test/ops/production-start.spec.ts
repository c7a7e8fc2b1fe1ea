// `npm run build` then `npm run start:prod`, as the README tells operators: the compiled gateway,
// with the Node flags of the start:prod script, serves the same answers as `npm start`.
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { productionNodeArgs } from '../../bench/lib/processes.ts';
import { startReferenceApi } from '../../src/reference-api/index.ts';
import { startMain } from '../support/main-process.ts';

const root = new URL('../../', import.meta.url);
const api = await startReferenceApi();
afterAll(() => api.close());

describe('npm run build && npm run start:prod', () => {
  it('runs the compiled gateway with the production Node flags and answers like npm start', async () => {
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'pipe' });
    // What npm would run for start:prod, with this test's own node binary. The same reading of the
    // script as the bench's, which throws unless it is `node [flags] dist/main.js`.
    const flags = productionNodeArgs();
    expect(flags).toContain('--max-semi-space-size=64');
    // The old generation's growth cap (docs/performance.md); a Node whose V8 dropped the flag refuses to start.
    expect(flags).toContain('--heap-growing-percent=100');
    // No allocation-site pretenuring: it sent request objects straight to the old generation at 50 clients (docs/performance.md).
    expect(flags).toContain('--no-allocation-site-pretenuring');
    const command = [...flags, 'dist/main.js'];

    const main = startMain({ UPSTREAM_URL: api.url }, command);
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
});
