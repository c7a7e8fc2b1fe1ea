// Whether a failed upstream call may have reached the upstream, decided in one place (the transport
// notes when undici starts writing the request) and read through mayHaveReachedUpstream: each side
// through real sockets. Writes are used where it matters most (a write is never retried).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { createUpstreamTransport, type UpstreamTransport, type UpstreamTransportOptions } from '../../src/upstream/transport/transport.ts';
import { InvalidKeyError, mayHaveReachedUpstream } from '../../src/upstream/upstream-error.ts';
import { TRANSPORT_DEFAULTS } from '../support/defaults.ts';
import { refusedUrl } from '../support/refused-url.ts';
import { dripBody, sendJson } from '../support/scripted-answers.ts';
import { upstreamFailure } from '../support/upstream-failure.ts';

const KEY = 'phx_sent_key';

let upstream: ReferenceApi;
let transport: UpstreamTransport | undefined;

beforeEach(async () => {
  upstream = await startReferenceApi();
});

afterEach(async () => {
  await transport?.close();
  transport = undefined;
  await upstream.close();
});

function connect(options: Partial<UpstreamTransportOptions> = {}): UpstreamTransport {
  const created = createUpstreamTransport({ baseUrl: upstream.url, ...TRANSPORT_DEFAULTS, retryBaseDelayMs: 1, ...options });
  transport = created;
  return created;
}

const post = (t: UpstreamTransport, more: { deadlineAt?: number } = {}) =>
  t.request({ method: 'POST', path: '/api/organizations/', route: '/api/organizations/', key: KEY, body: { name: 'Acme' }, ...more });

describe('never left the gateway: not sent', () => {
  it('a refused connection', async () => {
    const t = connect({ baseUrl: await refusedUrl() });
    const error = await upstreamFailure(post(t));
    expect(error).toMatchObject({ kind: 'network', networkCode: 'ECONNREFUSED', sent: false, wireMs: 0 });
    expect(mayHaveReachedUpstream(error)).toBe(false);
  });

  it('a refused connection on every retry of a GET', async () => {
    const t = connect({ baseUrl: await refusedUrl() });
    const error = await upstreamFailure(t.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }));
    expect(error).toMatchObject({ attempts: 3, sent: false });
  });

  it('given up while it waited for the only pooled connection', async () => {
    const t = connect({ connections: 1, timeoutMs: 1000 });
    upstream.answerWith((req, res) => (req.path === '/api/drip/' ? void dripBody(res) : sendJson(res, 201, {})));
    const drip = upstreamFailure(t.request({ method: 'GET', path: '/api/drip/', route: '/api/drip/', key: KEY }));
    await expect.poll(() => upstream.requests.length).toBe(1);
    const error = await upstreamFailure(post(t, { deadlineAt: performance.now() + 200 }));
    expect(error).toMatchObject({ kind: 'timeout', sent: false, wireMs: 0 });
    expect(error.queuedMs).toBeGreaterThanOrEqual(199);
    expect(mayHaveReachedUpstream(error)).toBe(false);
    await drip;
    await t.request({ method: 'GET', path: '/api/after/', route: '/api/after/', key: KEY });
    expect(upstream.requests.map((r) => r.method)).toEqual(['GET', 'GET']); // the POST never went out
  });

  it('a call whose request deadline had passed, and a key that cannot be sent', async () => {
    const t = connect();
    expect(mayHaveReachedUpstream(await upstreamFailure(post(t, { deadlineAt: performance.now() - 1 })))).toBe(false);
    const invalidKey = await t
      .request({ method: 'POST', path: '/api/organizations/', route: '/api/organizations/', key: 'a b' })
      .catch((e: unknown) => e);
    expect(invalidKey).toBeInstanceOf(InvalidKeyError);
    expect(mayHaveReachedUpstream(invalidKey)).toBe(false);
    expect(upstream.requests).toHaveLength(0);
  });
});

describe('may have reached the upstream: sent', () => {
  it('a 200 whose body drips past the timeout', async () => {
    const t = connect({ timeoutMs: 300 });
    upstream.answerWith((_req, res) => void dripBody(res));
    const error = await upstreamFailure(post(t));
    expect(error).toMatchObject({ kind: 'timeout', sent: true });
    expect(error.wireMs).toBeGreaterThanOrEqual(250);
    expect(error.queuedMs).toBeLessThan(100);
    expect(mayHaveReachedUpstream(error)).toBe(true);
    expect(upstream.requests).toHaveLength(1);
  });

  it('a server that accepts the request, then resets the connection', async () => {
    const t = connect();
    upstream.answerWith((_req, _res, raw) => raw.socket.resetAndDestroy());
    const error = await upstreamFailure(post(t));
    expect(error).toMatchObject({ kind: 'network', sent: true });
    expect(mayHaveReachedUpstream(error)).toBe(true);
  });

  it('any answer, an error status included', async () => {
    const t = connect();
    upstream.answerWith((_req, res) => sendJson(res, 500, {}));
    expect(await upstreamFailure(post(t))).toMatchObject({ kind: 'http', status: 500, sent: true });
  });

  it('an error that did not come from the transport, to be safe', () => {
    expect(mayHaveReachedUpstream(new Error('unknown'))).toBe(true);
  });
});
