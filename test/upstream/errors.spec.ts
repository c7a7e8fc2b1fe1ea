import type { ServerResponse } from 'node:http';
import { GraphQLError } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayError, isNotFound, toGraphQLError } from '../../src/errors/graphql-errors.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { InvalidPathSegmentError, segment } from '../../src/upstream/paths.ts';
import { createUpstreamTransport, type HttpMethod, type UpstreamTransport } from '../../src/upstream/transport/transport.ts';
import { InvalidKeyError, UpstreamError } from '../../src/upstream/upstream-error.ts';
import { TRANSPORT_DEFAULTS } from '../support/defaults.ts';
import { refusedUrl } from '../support/refused-url.ts';
import { dropMidResponse, sendJson } from '../support/scripted-answers.ts';

const KEY = 'phx_very_secret_key';

let upstream: ReferenceApi;
let transport: UpstreamTransport;

beforeAll(async () => {
  upstream = await startReferenceApi();
  transport = createUpstreamTransport({ baseUrl: upstream.url, ...TRANSPORT_DEFAULTS, timeoutMs: 200, getRetries: 0 });
});

afterAll(async () => {
  await transport.close();
  await upstream.close();
});

/** What a caller would see for the failure of one real upstream call, as serialised JSON. */
async function callerSees(answer: (res: ServerResponse) => void, method: HttpMethod = 'GET', t = transport) {
  upstream.answerWith((_req, res) => answer(res));
  const error = await t.request({ method, path: '/api/organizations/', route: '/api/organizations/', key: KEY }).then(
    () => undefined,
    (e: unknown) => e,
  );
  const json = toGraphQLError(error).toJSON();
  const text = JSON.stringify(json);
  expect(text).not.toContain(KEY);
  expect(text).not.toContain('127.0.0.1');
  expect(text).not.toContain('at '); // no stack frames
  return json;
}

describe('toGraphQLError for upstream failures', () => {
  it.each([
    [401, { detail: 'Invalid personal API key.' }, 'UNAUTHENTICATED', 'The upstream service rejected the API key.'],
    [
      403,
      { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'organization:read'", attr: null },
      'FORBIDDEN',
      "API key missing required scope 'organization:read'",
    ],
    [403, 'not json', 'FORBIDDEN', 'The API key is not allowed to do this.'],
    [404, { detail: 'Not found.' }, 'NOT_FOUND', 'Not found.'],
    [
      400,
      { type: 'validation_error', code: 'invalid', detail: 'Enter a valid UUID.', attr: 'id' },
      'BAD_USER_INPUT',
      'Enter a valid UUID.',
    ],
    [409, { detail: 'Conflict.' }, 'UPSTREAM_ERROR', 'The upstream service failed (HTTP 409).'],
    [500, 'oops', 'UPSTREAM_ERROR', 'The upstream service failed (HTTP 500).'],
    [503, {}, 'UPSTREAM_ERROR', 'The upstream service failed (HTTP 503).'],
  ])('HTTP %i %j -> %s', async (status, body, code, message) => {
    const json = await callerSees((res) => (typeof body === 'string' ? res.writeHead(status).end(body) : sendJson(res, status, body)));
    expect(json).toEqual({ message, extensions: { code, upstreamStatus: status } });
  });

  it('429 -> RATE_LIMITED with retryAfter from the header, or from the detail text', async () => {
    expect(await callerSees((res) => sendJson(res, 429, {}, { 'retry-after': '3' }))).toEqual({
      message: 'The upstream service is rate limiting this key. Retry after 3 seconds.',
      extensions: { code: 'RATE_LIMITED', upstreamStatus: 429, retryAfter: 3 },
    });
    const throttled = {
      type: 'throttled_error',
      code: 'throttled',
      detail: 'Request was throttled. Expected available in 12 seconds.',
      attr: null,
    };
    expect((await callerSees((res) => sendJson(res, 429, throttled))).extensions).toEqual({
      code: 'RATE_LIMITED',
      upstreamStatus: 429,
      retryAfter: 12,
    });
    expect((await callerSees((res) => sendJson(res, 429, {}))).extensions).toEqual({ code: 'RATE_LIMITED', upstreamStatus: 429 });
  });

  it.each([
    ['1', 'Retry after 1 second.'],
    ['2', 'Retry after 2 seconds.'],
    ['0', 'Retry after 0 seconds.'],
  ])('429 with Retry-After %s says "%s"', async (retryAfter, sentence) => {
    const json = await callerSees((res) => sendJson(res, 429, {}, { 'retry-after': retryAfter }));
    expect(json.message).toBe(`The upstream service is rate limiting this key. ${sentence}`);
  });

  it('429 with an unusable Retry-After falls back to the throttling text, then to nothing', async () => {
    const throttled = {
      type: 'throttled_error',
      code: 'throttled',
      detail: 'Request was throttled. Expected available in 1 second.',
      attr: null,
    };
    expect(await callerSees((res) => sendJson(res, 429, throttled, { 'retry-after': '-1' }))).toEqual({
      message: 'The upstream service is rate limiting this key. Retry after 1 second.',
      extensions: { code: 'RATE_LIMITED', upstreamStatus: 429, retryAfter: 1 },
    });
    expect((await callerSees((res) => sendJson(res, 429, {}, { 'retry-after': '1.5' }))).extensions).toEqual({
      code: 'RATE_LIMITED',
      upstreamStatus: 429,
    });
  });

  it('malformed 2xx body -> UPSTREAM_ERROR with the status', async () => {
    expect(await callerSees((res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{'))).toEqual({
      message: 'The upstream service sent a malformed response.',
      extensions: { code: 'UPSTREAM_ERROR', upstreamStatus: 200 },
    });
  });

  it('redirect -> UPSTREAM_ERROR without the Location', async () => {
    const json = await callerSees((res) => res.writeHead(301, { location: 'http://127.0.0.1:1/api/organizations/' }).end());
    expect(json.extensions).toEqual({ code: 'UPSTREAM_ERROR', upstreamStatus: 301 });
  });

  it('dropped connection -> UPSTREAM_ERROR without upstreamStatus', async () => {
    expect(await callerSees(dropMidResponse)).toEqual({
      message: 'The upstream service could not be reached.',
      extensions: { code: 'UPSTREAM_ERROR' },
    });
  });

  it('refused connection -> UPSTREAM_ERROR', async () => {
    const refused = createUpstreamTransport({ baseUrl: await refusedUrl(), ...TRANSPORT_DEFAULTS, getRetries: 0 });
    try {
      expect((await callerSees(() => undefined, 'GET', refused)).extensions).toEqual({ code: 'UPSTREAM_ERROR' });
    } finally {
      await refused.close();
    }
  });

  it('an answer over MAX_UPSTREAM_RESPONSE_BYTES -> UPSTREAM_ERROR with the status', async () => {
    const capped = createUpstreamTransport({ baseUrl: upstream.url, ...TRANSPORT_DEFAULTS, maxResponseBytes: 1024, getRetries: 0 });
    try {
      expect(await callerSees((res) => sendJson(res, 200, 'x'.repeat(2000)), 'GET', capped)).toEqual({
        message: 'The upstream service sent a response larger than the gateway accepts.',
        extensions: { code: 'UPSTREAM_ERROR', upstreamStatus: 200 },
      });
    } finally {
      await capped.close();
    }
  });

  it('timeout -> UPSTREAM_TIMEOUT', async () => {
    expect(await callerSees(() => undefined)).toEqual({
      message: 'The upstream service did not answer in time.',
      extensions: { code: 'UPSTREAM_TIMEOUT' },
    });
  });
});

describe('toGraphQLError for everything else', () => {
  it('passes a GraphQLError through unchanged', () => {
    const error = gatewayError('QUERY_TOO_COMPLEX', 'Too many upstream calls.', { cost: 300 });
    expect(toGraphQLError(error)).toBe(error);
    expect(error.extensions).toEqual({ cost: 300, code: 'QUERY_TOO_COMPLEX' });
  });

  it('never lets extensions override the code', () => {
    expect(gatewayError('FORBIDDEN', 'no', { code: 'OTHER' }).extensions.code).toBe('FORBIDDEN');
  });

  it('turns a bad id into BAD_USER_INPUT and an unusable key into UNAUTHENTICATED', () => {
    const badId = (() => {
      try {
        return segment('..', 'databaseId');
      } catch (e) {
        return e;
      }
    })();
    expect(badId).toBeInstanceOf(InvalidPathSegmentError);
    expect(toGraphQLError(badId).extensions.code).toBe('BAD_USER_INPUT');
    expect(toGraphQLError(new InvalidKeyError()).extensions.code).toBe('UNAUTHENTICATED');
  });

  it('masks anything unexpected, without an originalError that masking would reveal', () => {
    const error = toGraphQLError(new Error(`connect to http://127.0.0.1:8010 with ${KEY} failed`));
    expect(error).toBeInstanceOf(GraphQLError);
    expect(error.toJSON()).toEqual({ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
    expect(error.originalError).toBeUndefined();
    expect(toGraphQLError('a string').message).toBe('Unexpected error.');
  });
});

describe('isNotFound', () => {
  it('is true only for an upstream 404', () => {
    const make = (status?: number) =>
      new UpstreamError({ kind: status ? 'http' : 'timeout', status, method: 'GET', route: '/api/organizations/:id/' });
    expect(isNotFound(make(404))).toBe(true);
    expect(isNotFound(make(403))).toBe(false);
    expect(isNotFound(make())).toBe(false);
    expect(isNotFound(gatewayError('NOT_FOUND', 'Not found.'))).toBe(false);
  });
});
