// MAX_UPSTREAM_RESPONSE_BYTES: an upstream answer larger than the cap fails the call, whether its
// Content-Length says so up front (nothing is read) or a chunked body grows past it while being read
// (buffered up to the cap); the socket is destroyed rather than drained. MAX_UPSTREAM_BUFFERED_BYTES
// caps what all calls in flight buffer together, and MAX_UPSTREAM_JSON_VALUES what a long answer may
// hold before it is parsed.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { COUNT_VALUES_ABOVE_CHARS, MAX_ANSWER_DEPTH } from '../../src/upstream/transport/json-values.ts';
import { createUpstreamTransport, type UpstreamTransport } from '../../src/upstream/transport/transport.ts';
import { DEFAULTS, TRANSPORT_DEFAULTS } from '../support/defaults.ts';
import { deepJsonText, type StreamedBody, sendJson, sendText, streamBody } from '../support/scripted-answers.ts';
import { upstreamFailure } from '../support/upstream-failure.ts';

const KEY = 'phx_size_key';
const CAP = 1024 * 1024;
const MB = 1024 * 1024;

let upstream: ReferenceApi;
let transport: UpstreamTransport;

beforeEach(async () => {
  upstream = await startReferenceApi();
  transport = createUpstreamTransport({
    baseUrl: upstream.url,
    ...TRANSPORT_DEFAULTS,
    maxResponseBytes: CAP,
    timeoutMs: 5000,
    getRetries: 0,
  });
});

afterEach(async () => {
  await transport.close();
  await upstream.close();
});

const get = () => transport.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY });

describe('an answer over the cap', () => {
  it('a 50 MB chunked body fails fast, is not read to its end, and leaves memory as it was', async () => {
    let streamed: StreamedBody | undefined;
    upstream.answerWith((_req, res) => (streamed = streamBody(res, 50 * MB)));
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
    upstream.answerWith((_req, res, raw) => {
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
    upstream.answerWith((_req, res) => {
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
      upstream.answerWith((_req, res) => {
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
    const defaults = createUpstreamTransport({ baseUrl: upstream.url, ...TRANSPORT_DEFAULTS });
    try {
      upstream.answerWith((_req, res) => sendJson(res, 200, bodyOf(8 * MB)));
      expect(
        ((await defaults.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY })).body as string)
          .length,
      ).toBe(8 * MB - 2);
      upstream.answerWith((_req, res) => sendJson(res, 200, bodyOf(8 * MB + 1)));
      expect(
        await upstreamFailure(defaults.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY })),
      ).toMatchObject({
        kind: 'too-large',
      });
    } finally {
      await defaults.close();
    }
  });
});

describe('answers holding too many values (MAX_UPSTREAM_JSON_VALUES) or nested too deep', () => {
  const MAX_VALUES = DEFAULTS.maxUpstreamJsonValues;
  /** `[0,0,…]` with `count` items: one array and `count - 1` commas, so `count` values as counted. */
  const numbers = (count: number) => `[${'0,'.repeat(count - 1)}0]`;

  it('an answer nested millions of levels deep, or of a flat array of empty objects, fails as too large without being parsed', async () => {
    // 7.4 MiB, under the default 8 MiB cap: parsed, it stalled the event loop for seconds.
    const deep = `{"count":1,"results":[{"id":"x","name":"x","junk":${deepJsonText(3_900_000, 'array')}}]}`;
    const flat = `{"count":1,"results":[],"junk":[${'{},'.repeat(MAX_VALUES)}{}]}`;
    const defaults = createUpstreamTransport({ baseUrl: upstream.url, ...TRANSPORT_DEFAULTS, getRetries: 0 });
    try {
      for (const text of [deep, flat]) {
        upstream.answerWith((_req, res) => sendText(res, 200, text));
        expect(
          await upstreamFailure(defaults.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY })),
        ).toMatchObject({
          kind: 'too-large',
          status: 200,
        });
      }
      // An error answer's body is then not read: the failure stands, without the upstream's detail.
      upstream.answerWith((_req, res) => sendText(res, 500, `{"detail":"down","junk":${deepJsonText(200_000, 'array')}}`));
      const error = await upstreamFailure(
        defaults.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }),
      );
      expect(error).toMatchObject({ kind: 'http', status: 500 });
      expect(error.detail).toBeUndefined();
      expect(upstream.requests).toHaveLength(3);
    } finally {
      await defaults.close();
    }
  });

  it('an answer of exactly the limit passes and one value more fails; shorter answers and real pages are not counted', async () => {
    const answer = (text: string) => upstream.answerWith((_req, res) => sendText(res, 200, text));
    answer(numbers(MAX_VALUES));
    expect(((await get()).body as number[]).length).toBe(MAX_VALUES);
    answer(numbers(MAX_VALUES + 1));
    expect(await upstreamFailure(get())).toMatchObject({ kind: 'too-large' });
    // Nesting, in an answer long enough to be counted: MAX_ANSWER_DEPTH levels pass, one more fails.
    const nested = (depth: number) => `{"pad":"${'x'.repeat(COUNT_VALUES_ABOVE_CHARS)}","junk":${deepJsonText(depth - 1, 'array')}}`;
    answer(nested(MAX_ANSWER_DEPTH));
    expect((await get()).body).toMatchObject({ pad: expect.any(String) });
    answer(nested(MAX_ANSWER_DEPTH + 1));
    expect(await upstreamFailure(get())).toMatchObject({ kind: 'too-large' });

    // An answer no longer than COUNT_VALUES_ABOVE_CHARS is not counted, even against a lower limit.
    const strict = createUpstreamTransport({ baseUrl: upstream.url, ...TRANSPORT_DEFAULTS, maxJsonValues: 1000, getRetries: 0 });
    const strictGet = () => strict.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY });
    try {
      const short = numbers(COUNT_VALUES_ABOVE_CHARS / 2 - 1);
      expect(short.length).toBe(COUNT_VALUES_ABOVE_CHARS - 1);
      answer(short);
      expect(((await strictGet()).body as number[]).length).toBe(COUNT_VALUES_ABOVE_CHARS / 2 - 1);
      answer(numbers(COUNT_VALUES_ABOVE_CHARS / 2)); // one value and one comma more: counted
      expect(await upstreamFailure(strictGet())).toMatchObject({ kind: 'too-large' });
    } finally {
      await strict.close();
    }

    // A page of 100 records of ~2.5 KB, strings holding brackets, commas and escaped quotes.
    const record = (i: number) => ({
      id: `rec-${i}`,
      description: `[{"a":1},\\"q\\",${'x'.repeat(2000)}`,
      questions: [{ type: 'open', choices: ['a', 'b', 'c'] }],
    });
    const page = { count: 100, next: null, previous: null, results: Array.from({ length: 100 }, (_, i) => record(i)) };
    upstream.answerWith((_req, res) => sendJson(res, 200, page));
    expect((await get()).body).toEqual(page);
  });
});

describe('answer bytes buffered by all calls at once (MAX_UPSTREAM_BUFFERED_BYTES)', () => {
  it('the call whose bytes would pass it fails as too large, and a call that ends gives its bytes back', async () => {
    const buffered = createUpstreamTransport({
      baseUrl: upstream.url,
      ...TRANSPORT_DEFAULTS,
      maxBufferedBytes: 2 * MB,
      timeoutMs: 5000,
      getRetries: 0,
    });
    // Each answer sends 768 KiB of a chunked body, then waits: three of them do not fit in 2 MiB.
    const held: ServerResponse[] = [];
    upstream.answerWith((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`"${'x'.repeat(768 * 1024 - 1)}`);
      held.push(res);
    });
    const call = () =>
      buffered.request({ method: 'GET', path: '/api/organizations/', route: '/api/organizations/', key: KEY }).then(
        (response) => (response.body as string).length,
        (error: unknown) => (error as { kind: string }).kind,
      );
    try {
      const calls = [call(), call(), call()];
      const outcomes: unknown[] = [];
      for (const pending of calls) void pending.then((outcome) => outcomes.push(outcome));
      await expect.poll(() => outcomes).toEqual(['too-large']);
      for (const res of held.splice(0)) if (!res.destroyed) res.end('"');
      expect((await Promise.all(calls)).sort()).toEqual([768 * 1024 - 1, 768 * 1024 - 1, 'too-large']);

      // Those calls ended: their bytes are free again.
      const next = call();
      await expect.poll(() => held.length).toBe(1);
      held[0]?.end('"');
      expect(await next).toBe(768 * 1024 - 1);
    } finally {
      await buffered.close();
    }
  });
});
