// A gateway loads the OpenTelemetry SDK with its exporters, and ioredis, only when its configuration
// uses them: without them a default start is ~110 ms shorter and its heap ~3 MB smaller
// (docs/performance.md#memory-at-rest). Each case builds a gateway from the environment, as
// src/main.ts does, in a process of its own, and reads which packages Node loaded.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);

const PACKAGES = ['@opentelemetry/sdk-trace-base', '@opentelemetry/resources', '@opentelemetry/exporter-trace-otlp-proto', 'ioredis'];

// Every package here has a CommonJS `main`, so an `import` of it lands in require's cache as a `require` does.
const PROBE = `
import { createRequire } from 'node:module';
import { loadConfig } from './src/config/index.ts';
import { createGateway } from './src/gateway.ts';
createGateway(loadConfig());
const loaded = Object.keys(createRequire(import.meta.url).cache);
const packages = ${JSON.stringify(PACKAGES)};
console.log(JSON.stringify(packages.filter((name) => loaded.some((path) => path.includes('/node_modules/' + name + '/')))));
process.exit(0);
`;

function packagesLoadedWith(env: Record<string, string>): string[] {
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', PROBE], {
    cwd: root,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, UPSTREAM_URL: 'http://127.0.0.1:9', LOG_LEVEL: 'fatal', ...env },
  });
  expect(child.status, child.stderr).toBe(0);
  return JSON.parse(child.stdout.trim().split('\n').at(-1) as string) as string[];
}

describe('optional dependencies', () => {
  it('a gateway without tracing or a Redis store loads neither the OpenTelemetry SDK nor ioredis', () => {
    expect(packagesLoadedWith({})).toEqual([]);
  });

  it('tracing loads the SDK and its protobuf exporter, a Redis store loads ioredis', () => {
    expect(packagesLoadedWith({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', CACHE: 'redis://127.0.0.1:9' })).toEqual(PACKAGES);
  });
});
