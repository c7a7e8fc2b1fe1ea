// Structured logs: one line per GraphQL request, unexpected errors with their original error, Yoga's
// own logging through the same logger, and no key anywhere.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createGateway } from '../../src/gateway.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startReferenceApi } from '../../src/reference-api/index.ts';
import { DEFAULTS } from '../support/defaults.ts';
import { subscribe } from '../support/sse.ts';
import { captureLogger, postGraphQL } from './support.ts';

const api = await startReferenceApi();
const capture = captureLogger();
const gateway = createGateway({ upstreamUrl: api.url, logger: capture.logger });
const fetchFn = gateway.yoga.fetch as (url: string, init: RequestInit) => Promise<Response>;

afterAll(async () => {
  await gateway.close();
  await api.close();
});
afterEach(() => {
  capture.lines.length = 0;
});

describe('the request line', () => {
  it('is written for GraphQL at /graphql/ too, and any other path ending in /graphql is 404 with no upstream call', async () => {
    const at = (path: string) => (_url: string, init: RequestInit) => gateway.yoga.fetch(`http://gateway.test${path}`, init);
    const query = 'query Probe { organizations(first: 1) { totalCount } }';
    api.clearRequests();
    const slash = await postGraphQL(at('/graphql/'), query, { key: api.keys.demo });
    expect(slash.body.errors).toBeUndefined();
    expect(capture.requestLines()).toMatchObject([{ operation: 'Probe', upstreamCalls: 1, outcome: 'ok' }]);
    // Yoga would run these as GraphQL (their URL's text ends in /graphql), outside the log, metrics and spans.
    for (const path of ['/x/graphql', '/metrics?x=/graphql', '/graphql/graphql']) {
      const response = await at(path)('', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${api.keys.demo}` },
        body: JSON.stringify({ query }),
      });
      expect(response.status).toBe(404);
    }
    expect(api.requests).toHaveLength(1);
    expect(capture.requestLines()).toHaveLength(1);
  });

  it('names the request id, operation, duration, upstream call count and outcome', async () => {
    api.clearRequests();
    const response = await postGraphQL(fetchFn, 'query Orgs { organizations(first: 2) { nodes { name domains { totalCount } } } }', {
      key: api.keys.demo,
      headers: { 'x-request-id': 'trace-123' },
    });
    expect(response.body.errors).toBeUndefined();
    const [line, ...others] = capture.requestLines();
    expect(others).toEqual([]);
    expect(line).toMatchObject({
      level: 'info',
      msg: 'graphql request',
      requestId: 'trace-123',
      operation: 'Orgs',
      operationType: 'query',
      status: 200,
      upstreamCalls: api.requests.length,
      upstreamRetries: 0,
      outcome: 'ok',
      errorCodes: [],
    });
    expect(api.requests.length).toBe(3);
    expect(line?.durationMs).toBeGreaterThan(0);
  });

  it('uses the generated request id the response carries, and lists the error codes', async () => {
    const response = await postGraphQL(fetchFn, '{ organizations { totalCount } }');
    expect(response.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const [line] = capture.requestLines();
    expect(line).toMatchObject({
      requestId: response.headers.get('x-request-id'),
      operation: null,
      upstreamCalls: 0,
      outcome: 'error',
      errorCodes: ['UNAUTHENTICATED'],
    });
  });

  it('logs requests that fail before execution too', async () => {
    const response = await postGraphQL(fetchFn, '{ organizations { nope } }', {
      key: api.keys.demo,
      headers: { accept: 'application/graphql-response+json' },
    });
    expect(response.status).toBe(400);
    expect(capture.requestLines()[0]).toMatchObject({ status: 400, outcome: 'error', errorCodes: ['GRAPHQL_VALIDATION_FAILED'] });
  });

  it('logs requests that are not GraphQL at all', async () => {
    const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: '{"query": ',
    });
    expect(response.status).toBe(400);
    expect(capture.requestLines()).toEqual([
      expect.objectContaining({ status: 400, operation: null, outcome: 'error', errorCodes: ['BAD_REQUEST'] }),
    ]);
  });

  it('is not written for /health, /readiness, /metrics, GraphiQL or CORS pre-flights', async () => {
    for (const path of ['/health', '/readiness', '/metrics']) await gateway.yoga.fetch(`http://gateway.test${path}`);
    const graphiql = await gateway.yoga.fetch('http://gateway.test/graphql', { headers: { accept: 'text/html' } });
    expect(await graphiql.text()).toContain('GraphiQL');
    await gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(capture.requestLines()).toEqual([]);
  });

  it('never contains the key', async () => {
    await postGraphQL(fetchFn, '{ organizations { totalCount } }', { key: api.keys.demo });
    await postGraphQL(fetchFn, '{ organizations { totalCount } }', { key: 'phx_not_a_real_key' });
    expect(capture.requestLines()).toHaveLength(2);
    expect(capture.text()).not.toContain(api.keys.demo);
    expect(capture.text()).not.toMatch(/phx_|Bearer/);
  });
});

describe('unexpected errors', () => {
  let broken: ReturnType<typeof createGateway>;
  const brokenCapture = captureLogger();
  const consoleSpies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((method) => vi.spyOn(console, method));

  beforeAll(() => {
    broken = createGateway({
      upstreamUrl: 'http://127.0.0.1:9',
      logger: brokenCapture.logger,
      transport: {
        request: () => Promise.reject(new TypeError('cannot read properties of undefined (reading "results")')),
        close: () => Promise.resolve(),
      },
    });
  });
  afterAll(async () => {
    await broken.close();
    for (const spy of consoleSpies) spy.mockRestore();
  });

  it('are masked for the caller and logged at error level with the original error and the request id', async () => {
    const response = await postGraphQL(broken.yoga.fetch as typeof fetchFn, '{ organizations { totalCount } }', {
      key: api.keys.demo,
      headers: { 'x-request-id': 'broken-1' },
    });
    expect(response.body.errors?.[0]).toMatchObject({ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(response.text).not.toContain('results');

    const errors = brokenCapture.lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      requestId: 'broken-1',
      path: 'organizations',
      err: { type: 'TypeError', message: 'cannot read properties of undefined (reading "results")' },
    });
    expect(errors[0]?.err.stack).toContain('TypeError');
    expect(brokenCapture.requestLines()[0]).toMatchObject({
      requestId: 'broken-1',
      outcome: 'error',
      errorCodes: ['INTERNAL_SERVER_ERROR'],
    });
  });

  it('in a subscription poll too: its event is "Unexpected error.", and the log has the original error but not the key', async () => {
    brokenCapture.lines.length = 0;
    const id = btoa('BatchExport:0b4c6f3e-2f1a-4c1e-9a51-6d2b8e0c1a11:5d1e7f3a-9b2c-4d8e-8f60-1a2b3c4d5e6f');
    const subscription = await subscribe(
      'http://gateway.test/graphql',
      'subscription ($id: ID!) { batchExport(id: $id) { paused } }',
      { id },
      api.keys.demo,
      broken.yoga.fetch as typeof fetch,
    );
    const [event] = await subscription.waitForEvents(1);
    await subscription.close();
    expect(event?.errors?.[0]).toMatchObject({ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    const errors = brokenCapture.lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      msg: 'unexpected error in a subscription poll (its subscribers saw "Unexpected error.")',
      watched: 'BatchExport 0b4c6f3e-2f1a-4c1e-9a51-6d2b8e0c1a11 5d1e7f3a-9b2c-4d8e-8f60-1a2b3c4d5e6f',
      err: { type: 'TypeError', message: 'cannot read properties of undefined (reading "results")' },
    });
    expect(brokenCapture.text()).not.toContain(api.keys.demo);
  });

  it('and nothing goes around the logger to the console', () => {
    for (const spy of consoleSpies) expect(spy).not.toHaveBeenCalled();
  });
});

describe('upstream failures', () => {
  it('are debug detail, not errors: the caller got a contract code and the request line has it', async () => {
    const capture = captureLogger();
    const local = createGateway({ upstreamUrl: api.url, logger: capture.logger });
    try {
      await postGraphQL(local.yoga.fetch as typeof fetchFn, '{ organizations { totalCount } }', { key: 'phx_unknown_key_for_logging' });
      expect(capture.lines.filter((line) => line.level === 'error')).toEqual([]);
      expect(capture.lines.find((line) => line.level === 'debug' && line.err)?.err).toMatchObject({
        type: 'UpstreamError',
        message: 'GET /api/organizations/: upstream answered HTTP 401',
      });
      expect(capture.requestLines()[0]).toMatchObject({ errorCodes: ['UNAUTHENTICATED'] });
      expect(capture.text()).not.toMatch(/phx_|Bearer/);
    } finally {
      await local.close();
    }
  });
});

describe('redaction', () => {
  it('censors authorization and cookie headers and anything named key, token or authorization', () => {
    const capture = captureLogger();
    capture.logger.info(
      {
        key: 'k1',
        token: 't1',
        authorization: 'a1',
        headers: { authorization: 'Bearer h1', cookie: 'c1' },
        req: { headers: { authorization: 'Bearer h2', cookie: 'c2' }, apiKey: 'k2' },
        nested: { deeper: { token: 't2', key: 'k3' } },
      },
      'redaction',
    );
    const text = capture.text();
    for (const secret of ['k1', 't1', 'a1', 'h1', 'c1', 'h2', 'c2', 'k2', 't2', 'k3']) expect(text).not.toContain(`"${secret}"`);
    expect(text).not.toContain('Bearer');
    expect(capture.lines[0]?.headers).toEqual({ authorization: '[redacted]', cookie: '[redacted]' });
  });

  it('honours the level', () => {
    const lines: string[] = [];
    const logger = createLogger({ ...DEFAULTS, logLevel: 'warn' }, { write: (line: string) => lines.push(line) });
    logger.info('quiet');
    logger.warn('loud');
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(['loud']);
  });
});
