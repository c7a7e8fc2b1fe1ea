// Issue 51: a misspelled setting used to be ignored in silence. At start, a variable that looks like
// a setting and is close to one is logged as a warning naming the setting it probably meant, and
// the gateway starts anyway; a variable of the system or of another program is left alone.
import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { likelyMisspellings } from '../../src/config/index.ts';
import { startMain } from '../support/main-process.ts';

const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

describe('misspelled settings', () => {
  it('are found by edit distance or by a word missing or added, each with the setting it probably meant', () => {
    expect(
      likelyMisspellings({
        UPSTREAM: 'http://upstream.internal',
        MAX_DEPT: '3',
        LOGLEVEL: 'debug',
        MAX_DEPHT: '3',
        CACHE_TTL: '1000',
        MAX_REQUEST_BODY_BYTES: '1024',
        CSRF_PREVENTON: 'true',
      }),
    ).toEqual([
      { variable: 'UPSTREAM', setting: 'UPSTREAM_URL' },
      { variable: 'MAX_DEPT', setting: 'MAX_DEPTH' },
      { variable: 'LOGLEVEL', setting: 'LOG_LEVEL' },
      { variable: 'MAX_DEPHT', setting: 'MAX_DEPTH' },
      { variable: 'CACHE_TTL', setting: 'CACHE_TTL_MS' },
      { variable: 'MAX_REQUEST_BODY_BYTES', setting: 'MAX_REQUEST_BYTES' },
      { variable: 'CSRF_PREVENTON', setting: 'CSRF_PREVENTION' },
    ]);
  });

  it("leave alone the settings themselves, other programs' variables, and names not shaped like a setting", () => {
    const env = {
      MAX_DEPTH: '3',
      LOG_LEVEL: 'debug',
      PATH: '/usr/bin',
      HOME: '/root',
      HOSTNAME: 'gateway-7',
      NODE_ENV: 'production',
      KUBERNETES_PORT: 'tcp://10.0.0.1:443',
      GATEWAY_SERVICE_PORT: '4000',
      OTEL_LOG_LEVEL: 'debug',
      OTEL_RESOURCE_ATTRIBUTES: 'service.name=gw',
      OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: '1000',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://collector:4318/v1/metrics',
      max_dept: '3',
      'Max-Depth': '3',
      DATABASE_URL: 'postgres://db',
    };
    expect(likelyMisspellings(env)).toEqual([]);
  });

  it('get a warning at start that names the setting and never the value; the gateway starts on the defaults', async () => {
    // LOG_FILE blank: the log goes to stdout, with the banner (the suite's runs log to a file).
    const main = startMain({ UPSTREAM: 'http://s3cr3t-host.internal', MAX_DEPT: '3', LOGLEVEL: 'debug', LOG_FILE: '' });
    children.push(main.child);
    const { output } = await main.ready;
    const warnings = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: string; variable?: string; setting?: string; msg: string })
      .filter((line) => line.variable !== undefined);
    expect(warnings.map(({ level, variable, setting }) => ({ level, variable, setting }))).toEqual(
      expect.arrayContaining([
        { level: 'warn', variable: 'UPSTREAM', setting: 'UPSTREAM_URL' },
        { level: 'warn', variable: 'MAX_DEPT', setting: 'MAX_DEPTH' },
        { level: 'warn', variable: 'LOGLEVEL', setting: 'LOG_LEVEL' },
      ]),
    );
    expect(warnings.find((line) => line.variable === 'UPSTREAM')?.msg).toBe(
      'UPSTREAM is not a setting, and is ignored: did you mean UPSTREAM_URL?',
    );
    expect(output).not.toContain('s3cr3t-host');
    // UPSTREAM is not UPSTREAM_URL: the bundled reference API is the upstream.
    expect(output).toContain('Upstream: the bundled reference API');
  });
});
