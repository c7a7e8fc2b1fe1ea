// MAX_UPSTREAM_RESPONSE_BYTES: an upstream answer larger than the cap fails the call without being
// buffered, whether its Content-Length says so up front or a chunked body grows past it while
// being read; the socket is destroyed rather than drained.
import type { Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUpstreamTransport, type UpstreamTransport } from '../../src/rest/transport.ts';
import { type FakeUpstream, type StreamedBody, sendJson, startFakeUpstream, streamBody } from '../support/fake-upstream.ts';
import { upstreamFailure } from '../support/upstream-failure.ts';

const KEY = 'phx_size_key';
const CAP = 1024 * 1024;
const MB = 1024 * 1024;

let upstream: FakeUpstream;
let transport: UpstreamTransport;

beforeEach(async () => {
  upstream = await startFakeUpstream();
  transport = createUpstreamTransport({ baseUrl: upstream.url, maxResponseBytes: CAP, timeoutMs: 5000, getRetries: 0 });
});

afterEach(async () => {
  await transport.close();
  await upstream.close();
});

const get = () => transport.request({ method: 'GET', path: '/api/organizations/', key: KEY });

describe('an answer over the cap', () => {
  it('a 50 MB chunked body fails fast, is not read to its end, and leaves memory as it was', async () => {
    let streamed: StreamedBody | undefined;
    upstream.handle((_req, res) => (streamed = streamBody(res, 50 * MB)));
    const memoryBefore = process.memoryUsage().arrayBuffers;
    const startedAt = performance.now();
    const error = await upstreamFailure(get());
    expect(error).toMatchObject({ kind: 'too-large', status: 200, sent: true });
    expect(performance.now() - startedAt).toBeLessThan(1000);
    await streamed?.done; // the gateway closed the connection: the upstream could not send the rest
    // What is in flight when the gateway stops reading: its cap and the loopback socket buffers.
    expect(streamed?.bytesWritten).toBeLessThan(25 * MB);
    expect(process.memoryUsage().arrayBuffers - memoryBefore).toBeLessThan(25 * MB);
  });

  it('a Content-Length over the cap fails on the headers, before any of the body is read', async () => {
    let served: Socket | undefined;
    upstream.handle((_req, res, raw) => {
      served = raw.socket;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50 * MB) });
      res.write('['); // and then nothing: only the headers can have failed the call
    });
    const startedAt = performance.now();
    expect(await upstreamFailure(get())).toMatchObject({ kind: 'too-large', status: 200 });
    expect(performance.now() - startedAt).toBeLessThan(500);
    await expect.poll(() => served?.destroyed).toBe(true); // closed, not drained for the pool
  });

  it('an error answer over the cap is cut the same way', async () => {
    upstream.handle((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html', 'content-length': String(CAP + 1) });
      res.end(Buffer.alloc(CAP + 1, 'x'));
    });
    expect(await upstreamFailure(get())).toMatchObject({ kind: 'too-large', status: 500 });
  });
});

describe('the cap itself', () => {
  // A JSON string padded to exactly `bytes` bytes.
  const bodyOf = (bytes: number) => 'x'.repeat(bytes - 2);

  it.each([
    ['Content-Length', true],
    ['chunked', false],
  ])('an answer of exactly the cap passes and one byte more fails (%s)', async (_name, withLength) => {
    for (const [bytes, ok] of [
      [CAP, true],
      [CAP + 1, false],
    ] as const) {
      upstream.handle((_req, res) => {
        const text = JSON.stringify(bodyOf(bytes));
        res.writeHead(200, { 'content-type': 'application/json', ...(withLength ? { 'content-length': String(bytes) } : {}) });
        // Several writes, so a chunked body arrives in more than one piece.
        for (let at = 0; at < text.length; at += 100_000) res.write(text.slice(at, at + 100_000));
        res.end();
      });
      if (ok) expect(((await get()).body as string).length).toBe(bytes - 2);
      else expect(await upstreamFailure(get())).toMatchObject({ kind: 'too-large' });
    }
  });

  it('defaults to 8 MiB', async () => {
    const defaults = createUpstreamTransport({ baseUrl: upstream.url });
    try {
      upstream.handle((_req, res) => sendJson(res, 200, bodyOf(8 * MB)));
      expect(((await defaults.request({ method: 'GET', path: '/api/organizations/', key: KEY })).body as string).length).toBe(8 * MB - 2);
      upstream.handle((_req, res) => sendJson(res, 200, bodyOf(8 * MB + 1)));
      expect(await upstreamFailure(defaults.request({ method: 'GET', path: '/api/organizations/', key: KEY }))).toMatchObject({
        kind: 'too-large',
      });
    } finally {
      await defaults.close();
    }
  });
});
