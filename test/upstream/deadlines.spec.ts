// UPSTREAM_TIMEOUT_MS bounds one upstream call end to end (connection wait, headers, the whole body,
// retries and their waits), a request's deadline cuts it too, and a call past either frees its
// socket: against answers scripted into the reference API over loopback sockets. A write, once sent, is cut by its own
// timeout only; a read whose caller left once it was sent is read to its end and its socket kept.
import type { Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { createUpstreamTransport, type UpstreamTransport, type UpstreamTransportOptions } from '../../src/upstream/transport/transport.ts';
import type { UpstreamError } from '../../src/upstream/upstream-error.ts';
import { TRANSPORT_DEFAULTS } from '../support/defaults.ts';
import { lateness } from '../support/lateness.ts';
import { dripBody, type StreamedBody, sendJson, streamBody } from '../support/scripted-answers.ts';
import { upstreamFailure } from '../support/upstream-failure.ts';

const KEY = 'phx_deadline_key';
/** What the docs promise: a tick of the deadline clock, plus the event loop's delay meanwhile. */
const late = lateness();

let upstream: ReferenceApi;
let transport: UpstreamTransport;

beforeEach(async () => {
  late.reset();
  upstream = await startReferenceApi();
});

afterEach(async () => {
  await transport?.close();
  await upstream.close();
});

function connect(options: Partial<UpstreamTransportOptions> = {}): UpstreamTransport {
  transport = createUpstreamTransport({ baseUrl: upstream.url, ...TRANSPORT_DEFAULTS, retryBaseDelayMs: 1, ...options });
  return transport;
}

const get = (path: string, more: { deadlineAt?: number; signal?: AbortSignal } = {}) =>
  transport.request({ method: 'GET', path, route: path, key: KEY, ...more });

/**
 * The UpstreamError a call fails with, and how long after `startedAt` it failed. The call is started
 * here, after the clock, so the time is never short of the limit the transport started counting.
 */
async function failure(call: () => Promise<unknown>, startedAt = performance.now()): Promise<{ error: UpstreamError; afterMs: number }> {
  const error = await upstreamFailure(call());
  return { error, afterMs: performance.now() - startedAt };
}

function expectOnTime(afterMs: number, limitMs: number): void {
  expect(afterMs).toBeGreaterThanOrEqual(limitMs - 1);
  expect(afterMs).toBeLessThan(limitMs + late.allowedMs());
}

describe('a dripping body', () => {
  it.each([100, 200])('200 then a byte every %i ms ends as a timeout at UPSTREAM_TIMEOUT_MS, and frees the socket', async (intervalMs) => {
    connect({ timeoutMs: 600, connections: 1 });
    let dripClosed: Promise<void> | undefined;
    upstream.answerWith((req, res) => {
      if (req.path === '/api/drip/') dripClosed = dripBody(res, intervalMs);
      else sendJson(res, 200, { ok: true });
    });

    const { error, afterMs } = await failure(() => get('/api/drip/'));
    expect(error).toMatchObject({ kind: 'timeout', attempts: 1, sent: true });
    expectOnTime(afterMs, 600);
    await dripClosed; // the gateway closed the dripping connection itself
    // The pool's only connection is free again: the next call goes out at once.
    const startedAt = performance.now();
    expect((await get('/api/next/')).body).toEqual({ ok: true });
    expect(performance.now() - startedAt).toBeLessThan(200);
    expect(upstream.requests.map((r) => r.path)).toEqual(['/api/drip/', '/api/next/']);
  });

  it('ends at the request deadline when that comes first, though the call is within its own timeout', async () => {
    connect({ timeoutMs: 5000 });
    upstream.answerWith((_req, res) => void dripBody(res));
    const startedAt = performance.now();
    const { error, afterMs } = await failure(() => get('/api/drip/', { deadlineAt: startedAt + 400 }), startedAt);
    expect(error.kind).toBe('timeout');
    expectOnTime(afterMs, 400);
  });

  it("ends when the caller goes away (its client disconnected); what is left of the answer is read until the call's own limit, then cut", async () => {
    connect({ timeoutMs: 1000 });
    let dripClosedAt = 0;
    upstream.answerWith(
      (_req, res) =>
        void dripBody(res).then(() => {
          dripClosedAt = performance.now();
        }),
    );
    const caller = new AbortController();
    const startedAt = performance.now(); // before the abort is scheduled, so the wait is never short of it
    setTimeout(() => caller.abort(), 200);
    const { error, afterMs } = await failure(() => get('/api/drip/', { signal: caller.signal }), startedAt);
    expect(error.kind).toBe('aborted');
    expectOnTime(afterMs, 200);
    // Still read (not cut at the abort), and cut by the gateway at UPSTREAM_TIMEOUT_MS.
    expect(dripClosedAt).toBe(0);
    await expect.poll(() => dripClosedAt, { timeout: 2000 }).toBeGreaterThan(0);
    expectOnTime(dripClosedAt - startedAt, 1000);
  });
});

describe('a read whose caller left once it was sent', () => {
  it('fails for the caller at once, and its answer is read to the end and dropped: the socket serves the next call', async () => {
    connect({ timeoutMs: 5000, connections: 1 });
    const sockets: Socket[] = [];
    upstream.answerWith((req, res, raw) => {
      sockets.push(raw.socket);
      if (req.path !== '/api/slow/') return sendJson(res, 200, { ok: true });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('[');
      setTimeout(() => res.end(']'), 400);
    });
    const caller = new AbortController();
    const startedAt = performance.now();
    setTimeout(() => caller.abort(), 100);
    const { error, afterMs } = await failure(() => get('/api/slow/', { signal: caller.signal }), startedAt);
    expect(error).toMatchObject({ kind: 'aborted', sent: true });
    expectOnTime(afterMs, 100);

    expect((await get('/api/next/')).body).toEqual({ ok: true });
    // The next call waited for the answer's end on the pool's only connection, and used it.
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(399);
    expect(upstream.requests.map((r) => r.path)).toEqual(['/api/slow/', '/api/next/']);
    expect(sockets[1]).toBe(sockets[0]);
    expect(sockets[0]?.destroyed).toBe(false);
  });

  it('is cut once more of its answer arrives than an answer may hold', async () => {
    connect({ timeoutMs: 5000, maxResponseBytes: 1024 * 1024 });
    let streamed: StreamedBody | undefined;
    let served: Socket | undefined;
    upstream.answerWith((_req, res, raw) => {
      served = raw.socket;
      // The answer only after the caller left: 50 MiB, as fast as the gateway reads it.
      setTimeout(() => {
        streamed = streamBody(res, 50 * 1024 * 1024);
      }, 150);
    });
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 50);
    expect((await failure(() => get('/api/huge/', { signal: caller.signal }))).error.kind).toBe('aborted');
    await expect.poll(() => served?.destroyed, { timeout: 3000 }).toBe(true);
    await streamed?.done;
    // Its cap and the loopback socket buffers, not the 50 MiB.
    expect(streamed?.bytesWritten).toBeLessThan(25 * 1024 * 1024);
  });
});

describe('waiting for a pooled connection', () => {
  it('counts against the budget: with both connections held by drips, a third call fails at its own limit without being sent', async () => {
    connect({ timeoutMs: 1000, connections: 2 });
    upstream.answerWith((req, res) => (req.path === '/api/drip/' ? void dripBody(res) : sendJson(res, 200, { ok: true })));
    const drips = [failure(() => get('/api/drip/')), failure(() => get('/api/drip/'))];
    await expect.poll(() => upstream.requests.length).toBe(2);

    const startedAt = performance.now();
    const { error, afterMs } = await failure(() => get('/api/other/', { deadlineAt: startedAt + 300 }), startedAt);
    expect(error).toMatchObject({ kind: 'timeout', sent: false, wireMs: 0 });
    expectOnTime(afterMs, 300);
    expect(error.queuedMs).toBeGreaterThanOrEqual(299);

    for (const drip of await Promise.all(drips)) expect(drip.error).toMatchObject({ kind: 'timeout', sent: true });
    // The call given up while queued was dropped unwritten when a connection came free.
    expect((await get('/api/after/')).body).toEqual({ ok: true });
    expect(upstream.requests.map((r) => r.path)).toEqual(['/api/drip/', '/api/drip/', '/api/after/']);
  });
});

describe('retries', () => {
  it('count their waits: a wait of Retry-After then a drip still end at UPSTREAM_TIMEOUT_MS', async () => {
    connect({ timeoutMs: 1500 });
    upstream.answerWith((_req, res) =>
      upstream.requests.length === 1 ? sendJson(res, 503, {}, { 'retry-after': '1' }) : void dripBody(res),
    );
    const { error, afterMs } = await failure(() => get('/api/organizations/'));
    expect(error).toMatchObject({ kind: 'timeout', attempts: 2 });
    expectOnTime(afterMs, 1500);
    const [first, second] = upstream.requests;
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(1000);
  });

  it('are not attempted when the wait would end past the budget', async () => {
    connect({ timeoutMs: 800 });
    upstream.answerWith((_req, res) => sendJson(res, 503, {}, { 'retry-after': '1' }));
    const { error, afterMs } = await failure(() => get('/api/organizations/'));
    expect(error).toMatchObject({ kind: 'http', status: 503, attempts: 1 });
    expect(afterMs).toBeLessThan(300);
  });
});

describe('a write once sent is seen through', () => {
  const write = (more: { deadlineAt?: number; signal?: AbortSignal } = {}) =>
    transport.request({
      method: 'POST',
      path: '/api/organizations/',
      route: '/api/organizations/',
      key: KEY,
      body: { name: 'Acme' },
      ...more,
    });
  const answerAfter = (ms: number) => upstream.answerWith((_req, res) => void setTimeout(() => sendJson(res, 201, { id: 'created' }), ms));

  it('the caller going away and the request deadline no longer cut it: it gets its answer', async () => {
    connect({ timeoutMs: 5000 });
    answerAfter(400);
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 100);
    const startedAt = performance.now();
    const [aborted, pastDeadline] = await Promise.all([write({ signal: caller.signal }), write({ deadlineAt: startedAt + 100 })]);
    expect(aborted.body).toEqual({ id: 'created' });
    expect(pastDeadline.body).toEqual({ id: 'created' });
    expect(upstream.requests).toHaveLength(2);
  });

  it('its own UPSTREAM_TIMEOUT_MS still ends it, as a timeout that may have been sent', async () => {
    connect({ timeoutMs: 300 });
    answerAfter(2000);
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 100);
    const { error, afterMs } = await failure(() => write({ signal: caller.signal }));
    expect(error).toMatchObject({ kind: 'timeout', sent: true });
    expectOnTime(afterMs, 300);
  });

  it('one not sent yet is still given up: waiting for a pooled connection past the deadline, it sends nothing', async () => {
    connect({ timeoutMs: 1000, connections: 1 });
    upstream.answerWith((req, res) => (req.path === '/api/drip/' ? void dripBody(res) : sendJson(res, 201, {})));
    const drip = failure(() => get('/api/drip/'));
    await expect.poll(() => upstream.requests.length).toBe(1);
    const { error } = await failure(() => write({ deadlineAt: performance.now() + 200 }));
    expect(error).toMatchObject({ kind: 'timeout', sent: false });
    await drip;
    expect(upstream.requests.map((r) => r.method)).toEqual(['GET']);
  });
});
