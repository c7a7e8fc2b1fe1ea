// No upstream text carries a secret to the caller or the log. The reference API, scripted, answers a write with
// 400 and a read with 403, each body holding a secret somewhere (code, attr, detail; raw, encoded,
// in a URL, under a stack trace); the caller's ValidationError and FORBIDDEN message, and every line
// of a LOG_LEVEL=debug log, carry only the redacted text. The redaction itself: test/upstream/redact.spec.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { sendJson } from '../support/scripted-answers.ts';
import { captureLogger, postGraphQL } from './support.ts';

/** Visible ASCII with characters that URL and form encoders rewrite. */
const KEY = 'phx_Redact/Me+Key=42!~(x)';
const ENCODED_FORMS = [
  encodeURIComponent(KEY),
  encodeURIComponent(KEY).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
  new URLSearchParams({ k: KEY }).toString().slice(2),
];

const MUTATION = `mutation { createOrganization(input: { name: "Acme" }) {
  __typename ... on ValidationError { message field code } } }`;
const READ = '{ organizations { totalCount } }';

let upstream: ReferenceApi;
let host: string;
beforeAll(async () => {
  upstream = await startReferenceApi();
  host = new URL(upstream.url).host;
});
afterAll(() => upstream.close());

interface Case {
  name: string;
  /** The upstream's error body, in the live service's shape. */
  body: () => { type: string; code: string; detail: string; attr: string | null };
  /** What the caller sees: the ValidationError of the write, the FORBIDDEN message of the read. */
  expected: { message: string; field: string | null; code: string };
  /** Text that must appear in neither the responses nor the log. */
  secrets: () => string[];
}

const CASES: Case[] = [
  {
    name: 'the key in `code`',
    body: () => ({ type: 'validation_error', code: `invalid_${KEY}`, detail: 'This value is invalid.', attr: 'name' }),
    expected: { message: 'This value is invalid.', field: 'name', code: 'invalid_[redacted]' },
    secrets: () => [KEY],
  },
  {
    name: 'the key in `attr`',
    body: () => ({ type: 'validation_error', code: 'invalid', detail: 'This value is invalid.', attr: `name__${KEY}` }),
    expected: { message: 'This value is invalid.', field: 'name.[redacted]', code: 'invalid' },
    secrets: () => [KEY],
  },
  {
    name: 'the key URL-encoded in `detail` (both hex cases, and form-encoded)',
    body: () => ({ type: 'validation_error', code: 'invalid', detail: `Keys ${ENCODED_FORMS.join(', ')} are not allowed.`, attr: null }),
    expected: { message: 'Keys [redacted], [redacted], [redacted] are not allowed.', field: null, code: 'invalid' },
    secrets: () => [KEY, ...ENCODED_FORMS],
  },
  {
    name: 'the key as a bearer token in `detail`',
    body: () => ({ type: 'validation_error', code: 'invalid', detail: `Header "Authorization: Bearer ${KEY}" refused.`, attr: null }),
    expected: { message: 'Header "Authorization: [redacted] refused.', field: null, code: 'invalid' },
    secrets: () => [KEY, 'Bearer'],
  },
  {
    name: 'a stack trace in `detail`',
    body: () => ({
      type: 'server_error',
      code: 'error',
      detail: `Traceback (most recent call last):\n  File "/srv/posthog/api/organization.py", line 42, in create\n    check_key("${KEY}")\nValueError: bad key`,
      attr: null,
    }),
    expected: { message: 'Traceback (most recent call last):', field: null, code: 'error' },
    secrets: () => [KEY, '/srv/posthog', 'organization.py', 'ValueError'],
  },
  {
    name: 'a URL with credentials in `detail`',
    body: () => ({
      type: 'server_error',
      code: 'error',
      detail: 'could not connect to postgres://admin:hunter2@db.internal:5432/posthog',
      attr: null,
    }),
    expected: { message: 'could not connect to [url]', field: null, code: 'error' },
    secrets: () => ['hunter2', 'admin:', 'db.internal', 'postgres://'],
  },
  {
    name: "the upstream's own URL and host in `detail` and `code`",
    body: () => ({
      type: 'invalid_request',
      code: `see_${host}`,
      detail: `Use ${upstream.url}/api/organizations/ on ${host} instead.`,
      attr: null,
    }),
    expected: { message: 'Use [url] on [redacted] instead.', field: null, code: 'see_[redacted]' },
    secrets: () => [upstream.url, host, '127.0.0.1'],
  },
];

describe.each(CASES)('upstream text with $name', ({ body, expected, secrets }) => {
  it('reaches the caller and the debug log redacted', async () => {
    upstream.requests.length = 0;
    upstream.answerWith((req, res) => sendJson(res, req.method === 'POST' ? 400 : 403, body()));
    const capture = captureLogger('debug');
    const gateway = createGateway({ upstreamUrl: upstream.url, logger: capture.logger });
    try {
      const fetchFn = gateway.yoga.fetch as (url: string, init: RequestInit) => Promise<Response>;
      const write = await postGraphQL(fetchFn, MUTATION, { key: KEY });
      expect(write.body.data.createOrganization).toEqual({ __typename: 'ValidationError', ...expected });
      const read = await postGraphQL(fetchFn, READ, { key: KEY });
      expect(read.body.errors?.[0]).toMatchObject({ message: expected.message, extensions: { code: 'FORBIDDEN', upstreamStatus: 403 } });
      expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/organizations/', 'GET /api/organizations/']);

      // The read's failure is logged at debug with the whole UpstreamError, its error body included.
      const logged = capture.lines.find((line) => line.err?.type === 'UpstreamError');
      expect(logged?.err).toMatchObject({ status: 403, detail: expected.message, body: { code: expected.code, detail: expected.message } });
      for (const text of [write.text, read.text, capture.text()]) {
        for (const secret of secrets()) expect(text).not.toContain(JSON.stringify(secret).slice(1, -1));
      }
    } finally {
      await gateway.close();
    }
  });
});
