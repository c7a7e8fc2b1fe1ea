// Nothing a caller sends grows what the gateway keeps: operation names of any length and number
// leave /metrics small and answering, and every log line bounded, however long the names, aliases
// or messages it would carry.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { DEFAULTS } from '../support/defaults.ts';
import { type ServedGateway, serveOverHttp } from '../support/http-server.ts';
import { captureLogger } from './support.ts';

const directory = mkdtempSync(join(tmpdir(), 'bounded-observability-'));
const gateways: Gateway[] = [];
const servers: ServedGateway[] = [];
const apis: ReferenceApi[] = [];
afterAll(async () => {
  for (const server of servers) await server.close();
  for (const gateway of gateways) await gateway.close();
  for (const api of apis) await api.close();
  rmSync(directory, { recursive: true, force: true });
});

/** A gateway over a loopback port, logging to a file of its own; no request here needs the upstream. */
async function serve(options: Partial<GatewayOptions> = {}) {
  const logFile = join(directory, `gateway-${gateways.length}.ndjson`);
  const gateway = createGateway({ upstreamUrl: 'http://127.0.0.1:9', logger: createLogger({ ...DEFAULTS, logFile }), ...options });
  const server = await serveOverHttp(gateway);
  gateways.push(gateway);
  servers.push(server);
  return {
    post: (body: unknown, headers: Record<string, string> = {}) =>
      fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
    metrics: () => fetch(server.url.replace(/\/graphql$/, '/metrics')),
    logLines: () =>
      readFileSync(logFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => ({ text: line, record: JSON.parse(line) as Record<string, any> })),
  };
}

/** `run(0)` to `run(count - 1)`, ten at a time. */
async function inBatches(count: number, run: (i: number) => Promise<void>) {
  for (let start = 0; start < count; start += 10) {
    await Promise.all(Array.from({ length: Math.min(10, count - start) }, (_, j) => run(start + j)));
  }
}

/** Every label value in a Prometheus text exposition. */
const labelValues = (text: string) => [...text.matchAll(/="((?:[^"\\]|\\.)*)"/g)].map((match) => match[1] as string);

/** A gateway in front of a fresh reference API: only a request whose key the upstream accepted names a series. */
async function serveWithUpstream(options: Partial<GatewayOptions> = {}) {
  const api = await startReferenceApi();
  apis.push(api);
  return { api, ...(await serve({ upstreamUrl: api.url, metricsCacheMs: 0, ...options })) };
}

/** One upstream call the key must pass; the error variant also asks for a project the upstream does not have (NOT_FOUND). */
const namedQuery = (name: string, failing = false) =>
  `query ${name} { organizations(first: 1) { totalCount } ${failing ? 'project(databaseId: "999999") { surveys { totalCount } }' : ''} }`;

describe('operation names chosen by callers', () => {
  let gateway: Awaited<ReturnType<typeof serveWithUpstream>>;
  beforeAll(async () => {
    gateway = await serveWithUpstream();
  });

  it('250 names of 90 KB each, each ok and failed, with a key: /metrics under 1 MB, answering 200, and every request line short', async () => {
    const huge = (i: number) => `Op${i}_${'x'.repeat(90_000)}`;
    const auth = { authorization: `Bearer ${gateway.api.keys.demo}` };
    await inBatches(250, async (i) => {
      const ok = await gateway.post({ query: namedQuery(huge(i)) }, auth);
      expect(ok.status).toBe(200);
      expect((await ok.json()).errors).toBeUndefined();
      const failed = await gateway.post({ query: namedQuery(huge(i), true) }, auth);
      expect((await failed.json()).errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    });

    const response = await gateway.metrics();
    expect(response.status).toBe(200);
    const text = await response.text();
    // METRICS_MAX_LABEL_VALUES distinct names of at most 100 characters (MAX_OPERATION_NAME_LENGTH), then `other`.
    expect(text.length).toBeLessThan(1_000_000);
    const max = DEFAULTS.metricsMaxLabelValues;
    expect(text).toContain(`gateway_graphql_operations_total{operation="other",outcome="ok"} ${250 - max}`);
    expect(text).toContain(`gateway_graphql_operations_total{operation="${huge(0).slice(0, 99)}…",outcome="ok"} 1`);
    expect(Math.max(...labelValues(text).map((value) => value.length))).toBeLessThanOrEqual(100);
    const operationLabels = new Set([...text.matchAll(/gateway_graphql_operations_total\{operation="([^"]*)"/g)].map((match) => match[1]));
    expect(operationLabels.size).toBe(max + 1);

    const requestLines = gateway.logLines().filter((line) => line.record.msg === 'graphql request');
    expect(requestLines).toHaveLength(500);
    for (const { text: line, record } of requestLines) {
      expect(line.length).toBeLessThan(500);
      expect(record.operation).toHaveLength(100);
      expect(record.operation).toMatch(/^Op\d+_x+…$/);
    }
  }, 120_000);

  it('keep /metrics answering after many more, with the same series', async () => {
    const before = await (await gateway.metrics()).text();
    const auth = { authorization: `Bearer ${gateway.api.keys.demo}` };
    for (let i = 0; i < 20; i++) await gateway.post({ query: namedQuery(`Later${i}_${'y'.repeat(50_000)}`) }, auth);
    const response = await gateway.metrics();
    expect(response.status).toBe(200);
    const after = await response.text();
    expect(after).toContain(`gateway_graphql_operations_total{operation="other",outcome="ok"} ${270 - DEFAULTS.metricsMaxLabelValues}`);
    const series = (text: string) => text.split('\n').filter((line) => line.startsWith('gateway_graphql_')).length;
    expect(series(after)).toBe(series(before));
  });
});

describe('callers the upstream did not accept', () => {
  it('name no series: 1,000 distinct names without a key or with made-up keys, each ok and failed, leave /metrics small and every slot free', async () => {
    const gateway = await serveWithUpstream({ metricsMaxLabelValues: 5 });
    const madeUp = { authorization: 'Bearer phx_made_up_key' };
    await inBatches(250, async (i) => {
      // Without a key: ok (no call) and failed (UNAUTHENTICATED); with a made-up key: the upstream's 401.
      await gateway.post({ query: `query Free${i} { __typename }` });
      await gateway.post({ query: `query NoKey${i} { organizations(first: 1) { totalCount } }` });
      await gateway.post({ query: `query MadeUp${i} { __typename }` }, madeUp);
      const refused = await gateway.post({ query: `query Refused${i} { organizations(first: 1) { totalCount } }` }, madeUp);
      expect((await refused.json()).errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    });
    const text = await (await gateway.metrics()).text();
    expect(text.length).toBeLessThan(100_000);
    const operations = new Set([...text.matchAll(/gateway_graphql_operations_total\{operation="([^"]*)"/g)].map((match) => match[1]));
    expect(operations).toEqual(new Set(['unverified']));
    expect(text).toContain('gateway_graphql_operations_total{operation="unverified",outcome="ok"} 500');
    expect(text).toContain('gateway_graphql_operations_total{operation="unverified",outcome="error"} 500');

    // Every label slot is still free for callers the upstream accepts.
    const auth = { authorization: `Bearer ${gateway.api.keys.demo}` };
    for (const name of ['A', 'B', 'C', 'D', 'E']) await gateway.post({ query: namedQuery(name) }, auth);
    const after = await (await gateway.metrics()).text();
    for (const name of ['A', 'B', 'C', 'D', 'E'])
      expect(after).toContain(`gateway_graphql_operations_total{operation="${name}",outcome="ok"} 1`);
  }, 120_000);
});

describe('any name, in the document or the operationName parameter', () => {
  it('reaches the log and the metrics as at most MAX_OPERATION_NAME_LENGTH characters, and past METRICS_MAX_LABEL_VALUES as other', async () => {
    const capture = captureLogger('info');
    const api = await startReferenceApi();
    apis.push(api);
    const gateway = createGateway({
      upstreamUrl: api.url,
      logger: capture.logger,
      maxOperationNameLength: 24,
      metricsMaxLabelValues: 5,
    });
    gateways.push(gateway);
    const graphqlName = fc
      .tuple(fc.constantFrom(...'_abcXYZ'), fc.string({ unit: fc.constantFrom(...'_09azAZ'), maxLength: 3000 }))
      .map(([first, rest]) => first + rest);
    // The parameter is any text at all (including lone surrogates), sent beside an anonymous operation.
    const parameter = fc.string({ unit: 'binary', maxLength: 3000 });
    // Each makes an upstream call its key passes: only such a request names a series.
    const request = fc.oneof(
      graphqlName.map((name) => ({ query: `query ${name} { organizations(first: 1) { totalCount } }` })),
      parameter.map((operationName) => ({ query: 'query { organizations(first: 1) { totalCount } }', operationName })),
    );

    await fc.assert(
      fc.asyncProperty(request, async (body) => {
        capture.lines.length = 0;
        const written = capture.text().length;
        await gateway.yoga.fetch('http://gateway.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${api.keys.demo}` },
          body: JSON.stringify(body),
        });
        const [line] = capture.requestLines();
        expect(line).toBeDefined();
        expect(line?.operation === null || line?.operation.length <= 24).toBe(true);
        expect(capture.text().length - written).toBeLessThan(600);
      }),
      { numRuns: 100 },
    );

    const text = await gateway.metrics.render().then((metrics) => metrics.body);
    const operations = [...text.matchAll(/gateway_graphql_operations_total\{operation="((?:[^"\\]|\\.)*)"/g)].map(
      (match) => match[1] as string,
    );
    expect(operations.every((label) => label.length <= 24)).toBe(true);
    // 5 names, `other`, and `anonymous` (an operation without a name), at most once per outcome.
    expect(new Set(operations).size).toBeLessThanOrEqual(7);
    expect(operations).toContain('other');
  });
});

describe('log lines', () => {
  it('are cut to LOG_MAX_LINE_LENGTH whatever they carry, and stay JSON', async () => {
    const file = join(directory, 'lines.ndjson');
    const logger = createLogger({ ...DEFAULTS, logFile: file, logMaxLineLength: 2048 });
    const anyText = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 100 }),
      fc.string({ unit: 'binary', minLength: 1000, maxLength: 6000, size: 'max' }),
    );
    const ownFields = new Set(['level', 'time', 'pid', 'msg', 'requestId', 'truncated', '__proto__']);
    const key = fc.string({ maxLength: 20 }).filter((name) => !ownFields.has(name));
    const record = fc.dictionary(key, fc.oneof(anyText, fc.array(anyText, { maxLength: 3 }), fc.integer()), { maxKeys: 8 });
    let written = 0;
    fc.assert(
      fc.property(record, anyText, (fields, message) => {
        logger.info({ requestId: 'r-1', ...fields }, message);
        written += 1;
      }),
      { numRuns: 100 },
    );

    const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(written);
    const strings = (value: unknown): string[] =>
      typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(strings) : [];
    for (const line of lines) {
      expect(line.length).toBeLessThanOrEqual(2048);
      const parsed = JSON.parse(line) as Record<string, unknown>;
      expect(parsed).toMatchObject({ level: 'info', pid: process.pid, requestId: 'r-1' });
      // A line that was too long has every string cut to an eighth of the limit.
      if (parsed.truncated) for (const text of strings(parsed)) expect(text.length).toBeLessThanOrEqual(256);
    }
    expect(lines.filter((line) => JSON.parse(line).truncated).length).toBeGreaterThan(20);
    // Short lines are written as they are.
    logger.info({ requestId: 'r-2', note: 'short' }, 'plain');
    expect(JSON.parse(readFileSync(file, 'utf8').trim().split('\n').at(-1)!)).toMatchObject({
      requestId: 'r-2',
      note: 'short',
      msg: 'plain',
    });
  });

  it('of an unexpected error stay bounded when its field path carries a 60 KB alias', async () => {
    const gateway = await serve({
      // An upstream that fails in a way the gateway did not foresee: the caller sees "Unexpected error.", the log the error.
      transport: { request: () => Promise.reject(new TypeError('cannot read properties of undefined')), close: () => Promise.resolve() },
    });
    const alias = `a${'b'.repeat(60_000)}`;
    const response = await gateway.post(
      { query: `{ ${alias}: organizations { totalCount } }` },
      { authorization: 'Bearer phx_bounded_log_test' },
    );
    expect(((await response.json()) as any).errors[0].extensions.code).toBe('INTERNAL_SERVER_ERROR');

    const lines = gateway.logLines();
    const error = lines.find((line) => line.record.level === 'error');
    expect(error?.record).toMatchObject({ truncated: true, err: { type: 'TypeError', message: 'cannot read properties of undefined' } });
    expect(error?.record.path).toMatch(/^ab+…$/);
    for (const { text } of lines) expect(text.length).toBeLessThanOrEqual(16_384);
  });
});
