import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { createUpstreamTransport, type UpstreamTransport, type UpstreamTransportOptions } from '../../src/upstream/transport/transport.ts';
import { InvalidKeyError, UpstreamError } from '../../src/upstream/upstream-error.ts';
import { TRANSPORT_DEFAULTS } from '../support/defaults.ts';
import { refusedUrl } from '../support/refused-url.ts';
import { dropMidResponse, sendJson } from '../support/scripted-answers.ts';

const KEY = 'phx_secret_key_123';

let upstream: ReferenceApi;
let transport: UpstreamTransport;

function connect(options: Partial<UpstreamTransportOptions> = {}): UpstreamTransport {
  transport = createUpstreamTransport({ baseUrl: upstream.url, ...TRANSPORT_DEFAULTS, retryBaseDelayMs: 1, ...options });
  return transport;
}

/** The UpstreamError a call fails with (fails the test if it succeeds or throws something else). */
async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  const upstreamError = error as UpstreamError;
  expect(upstreamError.message).not.toContain(KEY);
  expect(upstreamError.message).not.toContain('127.0.0.1');
  return upstreamError;
}

beforeEach(async () => {
  upstream = await startReferenceApi();
});

afterEach(async () => {
  await transport?.close();
  await upstream.close();
});

describe('what is sent', () => {
  it('sends only our headers, the key as a bearer token and the request id', async () => {
    const t = connect();
    const key = upstream.keys.demo; // the reference API answers it with its own data
    await t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key, requestId: 'req-42' });
    const [sent] = upstream.requests;
    expect(sent?.headers.authorization).toBe(`Bearer ${key}`);
    expect(sent?.headers['x-request-id']).toBe('req-42');
    expect(sent?.headers.accept).toBe('application/json');
    expect(sent?.headers['user-agent']).toMatch(/^org-graphql-gateway\//);
    // host and connection come from HTTP itself; nothing else may appear.
    expect(Object.keys(sent?.headers ?? {}).sort()).toEqual([
      'accept',
      'authorization',
      'connection',
      'host',
      'user-agent',
      'x-request-id',
    ]);
  });

  it('drops a request id that could inject a header, and never sends cookies', async () => {
    const t = connect();
    const key = upstream.keys.demo;
    await t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key, requestId: 'a\r\nx-evil: 1' });
    expect(upstream.requests[0]?.headers['x-request-id']).toBeUndefined();
    expect(upstream.requests[0]?.headers['x-evil']).toBeUndefined();
    expect(upstream.requests[0]?.headers.cookie).toBeUndefined();
  });

  it('refuses an unusable key without sending anything', async () => {
    const t = connect();
    await expect(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: '' })).rejects.toBeInstanceOf(
      InvalidKeyError,
    );
    await expect(
      t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: 'a b\r\nx: y' }),
    ).rejects.toBeInstanceOf(InvalidKeyError);
    expect(upstream.requests).toHaveLength(0);
  });

  it('sends a JSON body with its content type, and the query without undefined values', async () => {
    const t = connect();
    upstream.answerWith((_req, res) => sendJson(res, 201, { id: 'o1' }));
    const res = await t.request({
      method: 'POST',
      path: '/api/organizations/',
      route: '/api/organizations/',
      key: KEY,
      body: { name: 'Acme', enforce_2fa: null },
    });
    expect(res).toMatchObject({ status: 201, body: { id: 'o1' }, attempts: 1 });
    await t.request({
      method: 'GET',
      path: '/api/organizations/',
      route: '/api/organizations/',
      key: KEY,
      query: { limit: 20, offset: 40, unused: undefined },
    });
    const [post, get] = upstream.requests;
    expect(post?.headers['content-type']).toBe('application/json');
    expect(post?.body).toEqual({ name: 'Acme', enforce_2fa: null });
    expect(get?.query).toEqual({ limit: '20', offset: '40' });
    expect(get?.headers['content-type']).toBeUndefined();
  });

  it('keeps a path prefix of the base URL', async () => {
    const t = connect({ baseUrl: `${upstream.url}/prefix/` });
    upstream.answerWith((_req, res) => sendJson(res, 200, {}));
    await t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY });
    expect(upstream.requests[0]?.path).toBe('/prefix/api/organizations/');
  });

  it('gives body undefined for 204 and for an empty 200', async () => {
    const t = connect();
    upstream.answerWith((_req, res) => res.writeHead(204).end());
    expect(await t.request({ method: 'DELETE', path: '/api/organizations/x/', route: '/api/organizations/:id/', key: KEY })).toMatchObject({
      status: 204,
      body: undefined,
    });
    upstream.answerWith((_req, res) => res.writeHead(200, { 'content-length': '0' }).end());
    expect(
      (await t.request({ method: 'GET', path: '/api/organizations/x/', route: '/api/organizations/:id/', key: KEY })).body,
    ).toBeUndefined();
  });

  it('reuses one keep-alive connection for sequential calls', async () => {
    const t = connect();
    const ports = new Set<number | undefined>();
    upstream.answerWith((_req, res, raw) => {
      ports.add(raw.socket.remotePort);
      sendJson(res, 200, {});
    });
    for (let i = 0; i < 10; i++) await t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY });
    // The Pool may open a second client while the first is still marked busy; never one per call.
    expect(ports.size).toBeLessThanOrEqual(2);
  });
});

describe('failures', () => {
  it('carries the live service error body, detail and status', async () => {
    const t = connect({ getRetries: 0 });
    const body = { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'name' };
    upstream.answerWith((_req, res) => sendJson(res, 400, body));
    const error = await failure(
      t.request({ method: 'POST', path: '/api/organizations/', route: '/api/organizations/', key: KEY, body: {} }),
    );
    expect(error).toMatchObject({
      kind: 'http',
      status: 400,
      body,
      detail: 'This field is required.',
      method: 'POST',
      route: '/api/organizations/',
    });
    expect(error.message).toBe('POST /api/organizations/: upstream answered HTTP 400');
  });

  it('reads a bare DRF detail without inventing the full shape, and redacts the key and host from it', async () => {
    const t = connect();
    upstream.answerWith((_req, res) =>
      sendJson(res, 403, { detail: `key ${KEY} on ${upstream.url.replace('http://', '')} lacks 'organization:read'` }),
    );
    const error = await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }));
    expect(error.body).toBeUndefined();
    expect(error.detail).toBe("key [redacted] on [redacted] lacks 'organization:read'");
  });

  it('reports a 500 with a non-JSON body as http 500', async () => {
    const t = connect({ getRetries: 0 });
    upstream.answerWith((_req, res) => res.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Server Error</h1>'));
    expect(await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }))).toMatchObject({
      kind: 'http',
      status: 500,
      detail: undefined,
    });
  });

  it('reports malformed JSON and non-JSON content on 2xx as malformed', async () => {
    const t = connect();
    upstream.answerWith((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id": '));
    expect(await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }))).toMatchObject({
      kind: 'malformed',
      status: 200,
    });
    upstream.answerWith((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('{}'));
    expect(await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }))).toMatchObject({
      kind: 'malformed',
      status: 200,
    });
    upstream.answerWith((_req, _res, raw) => raw.socket.end('NOT HTTP AT ALL\r\n\r\n'));
    expect(await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }))).toMatchObject({
      kind: 'malformed',
      status: undefined,
    });
    expect(upstream.requests).toHaveLength(3); // malformed is not retried
  });

  it('reports a refused connection as network, after retrying a GET', async () => {
    const t = connect({ baseUrl: await refusedUrl() });
    const error = await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }));
    expect(error).toMatchObject({ kind: 'network', networkCode: 'ECONNREFUSED', attempts: 3 });
    expect(error.status).toBeUndefined();
  });

  it('reports a connection dropped mid-response as network', async () => {
    const t = connect({ getRetries: 0 });
    upstream.answerWith((_req, res) => dropMidResponse(res));
    const error = await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }));
    expect(error.kind).toBe('network');
  });

  it('times out a call that does not answer, headers or body', async () => {
    const t = connect({ timeoutMs: 150 });
    upstream.answerWith(() => undefined); // never answers
    const started = Date.now();
    expect(await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }))).toMatchObject({
      kind: 'timeout',
    });
    expect(Date.now() - started).toBeLessThan(1000);

    upstream.answerWith((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '10' });
      res.write('{"a":'); // and the rest never comes
    });
    expect(await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }))).toMatchObject({
      kind: 'timeout',
    });
  });

  it('stops at the caller abort signal and at a caller deadline', async () => {
    const t = connect();
    upstream.answerWith(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(
      await failure(
        t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY, signal: controller.signal }),
      ),
    ).toMatchObject({
      kind: 'aborted',
    });
    expect(
      await failure(
        t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY, signal: AbortSignal.timeout(50) }),
      ),
    ).toMatchObject({ kind: 'timeout' });
    expect(upstream.requests).toHaveLength(2); // neither was retried
    expect(
      await failure(
        t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY, signal: AbortSignal.abort() }),
      ),
    ).toMatchObject({
      kind: 'aborted',
    });
    expect(upstream.requests).toHaveLength(2); // an already aborted call sends nothing
  });

  it("ends an attempt at the request's deadline, and sends nothing once it has passed", async () => {
    const t = connect({ timeoutMs: 5000 });
    upstream.answerWith(() => undefined);
    const started = performance.now();
    expect(
      await failure(
        t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY, deadlineAt: started + 100 }),
      ),
    ).toMatchObject({
      kind: 'timeout',
    });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(upstream.requests).toHaveLength(1); // not retried past the deadline
    expect(
      await failure(
        t.request({
          method: 'GET',
          path: '/api/organizations/',
          route: '/api/organizations/',
          key: KEY,
          deadlineAt: performance.now() - 1,
        }),
      ),
    ).toMatchObject({ kind: 'timeout' });
    expect(upstream.requests).toHaveLength(1);
  });

  it('accepts an injected dispatcher (undici MockAgent) and leaves closing it to its owner', async () => {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('http://upstream.test')
      .intercept({ path: '/base/api/organizations/?limit=1', method: 'GET' })
      .reply(200, { count: 0 }, { headers: { 'content-type': 'application/json' } })
      .times(2);
    const t = connect({ baseUrl: 'http://upstream.test/base', dispatcher: agent });
    const call = () =>
      t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY, query: { limit: 1 } });
    expect((await call()).body).toEqual({ count: 0 });
    await t.close();
    await expect(call()).resolves.toMatchObject({ status: 200 }); // the agent is still open
    await agent.close();
  });

  it('does not follow a redirect: the other host receives nothing', async () => {
    const other = await startReferenceApi();
    try {
      const t = connect();
      upstream.answerWith((_req, res) => res.writeHead(302, { location: `${other.url}/api/organizations/` }).end());
      const error = await failure(t.request({ method: 'GET', path: '/api/organizations', route: '/api/organizations', key: KEY }));
      expect(error).toMatchObject({ kind: 'redirect', status: 302 });
      expect(error.message).not.toContain(other.url);
      expect(other.requests).toHaveLength(0);
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await other.close();
    }
  });
});

describe('retries', () => {
  it.each([502, 503, 504])('retries a GET on %i and succeeds', async (status) => {
    const t = connect();
    upstream.answerWith((_req, res) =>
      upstream.requests.length < 3 ? sendJson(res, status, { detail: 'busy' }) : sendJson(res, 200, { ok: true }),
    );
    const res = await t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY });
    expect(res).toMatchObject({ status: 200, body: { ok: true }, attempts: 3 });
    expect(upstream.requests).toHaveLength(3);
  });

  it('retries a GET after a dropped connection', async () => {
    const t = connect();
    upstream.answerWith((_req, res) => (upstream.requests.length === 1 ? dropMidResponse(res) : sendJson(res, 200, { ok: true })));
    expect(await t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY })).toMatchObject({
      body: { ok: true },
      attempts: 2,
    });
  });

  it('gives up after getRetries and reports the last answer', async () => {
    const t = connect({ getRetries: 1 });
    upstream.answerWith((_req, res) => sendJson(res, 502, {}));
    expect(await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }))).toMatchObject({
      kind: 'http',
      status: 502,
      attempts: 2,
    });
    expect(upstream.requests).toHaveLength(2);
  });

  it('honours Retry-After in seconds and as an HTTP date on 503', async () => {
    const t = connect({ timeoutMs: 5000 });
    upstream.answerWith((_req, res) =>
      upstream.requests.length === 1 ? sendJson(res, 503, {}, { 'retry-after': '1' }) : sendJson(res, 200, {}),
    );
    let started = Date.now();
    await t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);

    const inTwoSeconds = new Date(Date.now() + 2000).toUTCString(); // whole seconds: waits 1-2 s
    upstream.answerWith((_req, res) =>
      upstream.requests.length === 3 ? sendJson(res, 503, {}, { 'retry-after': inTwoSeconds }) : sendJson(res, 200, {}),
    );
    started = Date.now();
    await t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(upstream.requests).toHaveLength(4);
  });

  it('waits at least the backoff when Retry-After names a past date (now), and never sends a retry at once', async () => {
    const t = connect({ retryBaseDelayMs: 100 });
    upstream.answerWith((_req, res) => sendJson(res, 503, {}, { 'retry-after': 'Sun, 06 Nov 1994 08:49:37 GMT' }));
    expect(await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }))).toMatchObject({
      status: 503,
      retryAfterSeconds: 0,
      attempts: 3,
    });
    const [first, second, third] = upstream.requests.map((r) => r.receivedAt);
    // Equal jitter: at least half of each exponential step (100 ms, then 200 ms).
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(49);
    expect((third ?? 0) - (second ?? 0)).toBeGreaterThanOrEqual(99);
  });

  it.each(['-1', '1.5', '5, 10', '1e+23', 'soon'])('ignores an unusable Retry-After %j: the backoff decides', async (retryAfter) => {
    const t = connect({ retryBaseDelayMs: 20, timeoutMs: 5000 });
    upstream.answerWith((_req, res) =>
      upstream.requests.length === 1 ? sendJson(res, 503, {}, { 'retry-after': retryAfter }) : sendJson(res, 200, {}),
    );
    const started = Date.now();
    expect(await t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY })).toMatchObject({
      status: 200,
      attempts: 2,
    });
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('clamps a Retry-After decades ahead to an hour, which does not fit the budget: gives up at once', async () => {
    const t = connect({ timeoutMs: 5000 });
    upstream.answerWith((_req, res) => sendJson(res, 503, {}, { 'retry-after': 'Sat, 01 Jan 2080 00:00:00 GMT' }));
    const error = await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }));
    expect(error).toMatchObject({ status: 503, retryAfterSeconds: 3600, attempts: 1 });
  });

  it('gives up at once when Retry-After does not fit in the remaining time', async () => {
    const t = connect({ timeoutMs: 1000 });
    upstream.answerWith((_req, res) => sendJson(res, 503, {}, { 'retry-after': '30' }));
    const started = Date.now();
    expect(await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }))).toMatchObject({
      status: 503,
      retryAfterSeconds: 30,
      attempts: 1,
    });
    expect(Date.now() - started).toBeLessThan(500);
  });

  it.each(['POST', 'PATCH', 'DELETE'] as const)('never retries a %s', async (method) => {
    const t = connect();
    const write = () =>
      t.request({
        method,
        path: '/api/organizations/x/',
        route: '/api/organizations/:id/',
        key: KEY,
        body: method === 'DELETE' ? undefined : {},
      });
    upstream.answerWith((_req, res) => sendJson(res, 503, {}));
    expect(await failure(write())).toMatchObject({ status: 503, attempts: 1 });
    upstream.answerWith((_req, res) => dropMidResponse(res));
    expect(await failure(write())).toMatchObject({ kind: 'network', attempts: 1 });
    expect(upstream.requests).toHaveLength(2);
  });

  it('does not retry a 429, reading retryAfter from the header or else the detail', async () => {
    const t = connect();
    upstream.answerWith((_req, res) => sendJson(res, 429, { detail: 'slow down' }, { 'retry-after': '7' }));
    expect(await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }))).toMatchObject({
      status: 429,
      retryAfterSeconds: 7,
      attempts: 1,
    });
    const throttled = {
      type: 'throttled_error',
      code: 'throttled',
      detail: 'Request was throttled. Expected available in 12 seconds.',
      attr: null,
    };
    upstream.answerWith((_req, res) => sendJson(res, 429, throttled));
    expect(await failure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }))).toMatchObject({
      status: 429,
      retryAfterSeconds: 12,
      body: throttled,
    });
    expect(upstream.requests).toHaveLength(2);
  });

  it('never retries past the caller signal', async () => {
    const t = connect({ retryBaseDelayMs: 10_000, timeoutMs: 60_000 });
    upstream.answerWith((_req, res) => sendJson(res, 502, {}));
    const started = Date.now();
    const error = await failure(
      t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY, signal: AbortSignal.timeout(200) }),
    );
    expect(error.kind === 'timeout' || error.status === 502).toBe(true);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
