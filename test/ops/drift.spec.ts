// Drift: an upstream whose records gained a field the schema does not read and lost one it reads is
// seen in gateway_upstream_drift_total, in one warn line per (type, field, kind), and by `npm run
// drift`, which finds nothing against the bundled reference API.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { DEFAULTS } from '../support/defaults.ts';
import { sendJson } from '../support/scripted-answers.ts';

const run = promisify(execFile);
const directory = mkdtempSync(join(tmpdir(), 'drift-'));
let api: ReferenceApi;
let scripted: ReferenceApi;

/** `npm run drift`, as a person runs it: its exit code and output. */
async function drift(upstream: string, key: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('npx', ['tsx', 'scripts/drift.ts', '--upstream', upstream, '--key', key], { timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  api = await startReferenceApi();
  const organizations = (await (
    await fetch(`${api.url}/api/organizations/?limit=100`, { headers: { authorization: `Bearer ${api.keys.demo}` } })
  ).json()) as { count: number; results: Record<string, unknown>[] };
  // The service moved on: a field the schema does not read on every record, and one it reads gone
  // from the first only (records of one answer differ in their keys: each is compared).
  const drifted = organizations.results.map(({ slug, ...org }, index) => ({
    ...org,
    ...(index === 0 ? {} : { slug }),
    brand_new_setting: true,
  }));
  scripted = await startReferenceApi();
  scripted.answerWith((req, res) =>
    req.path === '/api/organizations/'
      ? sendJson(res, 200, { ...organizations, next: null, previous: null, results: drifted })
      : sendJson(res, 200, { count: 0, next: null, previous: null, results: [] }),
  );
});
afterAll(async () => {
  await scripted.close();
  await api.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('drift', () => {
  let gateway: Gateway;
  const logFile = join(directory, 'gateway.ndjson');
  beforeAll(() => {
    // Every scrape renders afresh (METRICS_CACHE_MS would answer the first scrape's rendering again).
    gateway = createGateway({ upstreamUrl: scripted.url, logger: createLogger({ ...DEFAULTS, logFile }), metricsCacheMs: 0 });
  });
  afterAll(() => gateway.close());

  const metricLines = async () =>
    (await (await gateway.yoga.fetch('http://gateway.test/metrics')).text())
      .split('\n')
      .filter((line) => line.startsWith('gateway_upstream_drift'));

  it('registers the counter from the start', async () => {
    const response = await gateway.yoga.fetch('http://gateway.test/metrics');
    expect(await response.text()).toContain('# TYPE gateway_upstream_drift_total counter');
  });

  it('counts an unknown and a missing field per record that has it, whatever was selected, and warns once for each', async () => {
    for (let i = 0; i < 2; i++) {
      const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer phx_fake' },
        body: JSON.stringify({ query: '{ organizations { nodes { name } } }' }),
      });
      expect(((await response.json()) as { errors?: unknown }).errors).toBeUndefined();
    }
    const orgCount = 2; // the demo key's organizations
    expect(await metricLines()).toEqual(
      expect.arrayContaining([
        `gateway_upstream_drift_total{type="Organization",field="brand_new_setting",kind="unknown"} ${2 * orgCount}`,
        `gateway_upstream_drift_total{type="Organization",field="slug",kind="missing"} 2`,
      ]),
    );
    const warnings = readFileSync(logFile, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((line) => line.drift);
    expect(warnings.map((line) => [line.level, line.drift])).toEqual([
      ['warn', { type: 'Organization', field: 'brand_new_setting', kind: 'unknown' }],
      ['warn', { type: 'Organization', field: 'slug', kind: 'missing' }],
    ]);
    expect(warnings[0].msg).toContain('Organization.brand_new_setting');
  });
});

describe('npm run drift', () => {
  it('exits 1 naming both fields on the drifted upstream', async () => {
    const { code, stdout } = await drift(scripted.url, 'phx_fake');
    expect(code).toBe(1);
    expect(stdout).toContain('Organization\tbrand_new_setting\tunknown');
    expect(stdout).toContain('Organization\tslug\tmissing');
    expect(scripted.requests.every((r) => r.headers.authorization === 'Bearer phx_fake')).toBe(true);
  });

  it('exits 0 against the bundled reference API: it serves the real shapes', async () => {
    const { code, stdout } = await drift(api.url, api.keys.demo);
    expect(stdout).toContain('No drift');
    expect(code).toBe(0);
  });

  it('exits 2 when the upstream cannot be read, without printing the key', async () => {
    const { code, stderr } = await drift(api.url, 'phx_not_a_key_of_this_api');
    expect(code).toBe(2);
    expect(stderr).toContain('HTTP 401');
    expect(stderr).not.toContain('phx_not_a_key_of_this_api');
  });
});
