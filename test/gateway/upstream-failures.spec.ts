// Upstream failures become the contract's error codes, with the rest of the data kept and nothing
// internal (URLs, keys, stacks) in the response. The upstream here is the reference API answering as each test scripts it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { type ReferenceApi, type ScriptedAnswer, startReferenceApi } from '../../src/reference-api/index.ts';
import { dropMidResponse, sendJson } from '../support/scripted-answers.ts';

const KEY = 'phx_secret_key_for_failure_tests';
const ORG = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0001';
const page = (results: unknown[]) => ({ count: results.length, next: null, previous: null, results });
const org = { id: ORG, name: 'Acme', slug: 'acme', teams: [] };

let upstream: ReferenceApi;
let gateway: Gateway;

beforeAll(async () => {
  upstream = await startReferenceApi();
  gateway = createGateway({ upstreamUrl: upstream.url, upstreamTimeoutMs: 300, upstreamGetRetries: 1 });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
});

async function run(query: string) {
  const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ query }),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as { data?: any; errors?: any[] } };
}

/** Organizations answer; the batch exports list fails as `fail` says. */
function failBatchExports(fail: ScriptedAnswer) {
  upstream.answerWith((req, res, raw) => {
    if (req.path === '/api/organizations/') return sendJson(res, 200, page([org]));
    if (req.path === `/api/organizations/${ORG}/domains/`) return sendJson(res, 200, page([{ id: ORG, domain: 'acme.com' }]));
    return fail(req, res, raw);
  });
}

const QUERY = `{ organizations { nodes { name batchExports { totalCount } domains { nodes { domain } } } } }`;

function expectOnlyBatchExportsFailed(body: { data?: any; errors?: any[] }, code: string) {
  expect(body.errors).toHaveLength(1);
  expect(body.errors?.[0]).toMatchObject({ path: ['organizations', 'nodes', 0, 'batchExports'], extensions: { code } });
  expect(body.data.organizations.nodes[0]).toEqual({ name: 'Acme', batchExports: null, domains: { nodes: [{ domain: 'acme.com' }] } });
}

function expectNothingInternal(text: string) {
  expect(text).not.toContain(KEY);
  expect(text).not.toContain(upstream.url);
  expect(text).not.toContain('127.0.0.1');
  expect(text).not.toMatch(/at .*\.ts:\d+/);
}

describe('upstream failures', () => {
  it('a 500 is UPSTREAM_ERROR with upstreamStatus, and is not retried', async () => {
    failBatchExports((_req, res) => sendJson(res, 500, { detail: 'boom at /internal/path' }));
    const { body, text } = await run(QUERY);
    expectOnlyBatchExportsFailed(body, 'UPSTREAM_ERROR');
    expect(body.errors?.[0].extensions.upstreamStatus).toBe(500);
    expect(upstream.requests.filter((r) => r.path.includes('batch_exports'))).toHaveLength(1);
    expectNothingInternal(text);
    expect(text).not.toContain('/internal/path');
  });

  it('a 503 GET is retried, then UPSTREAM_ERROR', async () => {
    failBatchExports((_req, res) => sendJson(res, 503, {}));
    const { body } = await run(QUERY);
    expectOnlyBatchExportsFailed(body, 'UPSTREAM_ERROR');
    expect(upstream.requests.filter((r) => r.path.includes('batch_exports'))).toHaveLength(2);
  });

  it('a malformed JSON body is UPSTREAM_ERROR', async () => {
    failBatchExports((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"count": 1, "resu'));
    const { body, text } = await run(QUERY);
    expectOnlyBatchExportsFailed(body, 'UPSTREAM_ERROR');
    expectNothingInternal(text);
  });

  it('a dropped connection is UPSTREAM_ERROR', async () => {
    failBatchExports((_req, res) => dropMidResponse(res));
    const { body, text } = await run(QUERY);
    expectOnlyBatchExportsFailed(body, 'UPSTREAM_ERROR');
    expectNothingInternal(text);
  });

  it('a slow answer past UPSTREAM_TIMEOUT_MS is UPSTREAM_TIMEOUT', async () => {
    failBatchExports((_req, res) => setTimeout(() => sendJson(res, 200, page([])), 1500));
    const { body, text } = await run(QUERY);
    expectOnlyBatchExportsFailed(body, 'UPSTREAM_TIMEOUT');
    expectNothingInternal(text);
  });

  it('a 429 is RATE_LIMITED with retryAfter from the header, not retried', async () => {
    failBatchExports((_req, res) =>
      sendJson(
        res,
        429,
        { type: 'throttled_error', code: 'throttled', detail: 'Request was throttled.', attr: null },
        { 'retry-after': '7' },
      ),
    );
    const { body } = await run(QUERY);
    expectOnlyBatchExportsFailed(body, 'RATE_LIMITED');
    expect(body.errors?.[0].extensions).toMatchObject({ retryAfter: 7, upstreamStatus: 429 });
    expect(upstream.requests.filter((r) => r.path.includes('batch_exports'))).toHaveLength(1);
  });

  it("a 429 without Retry-After takes the live service's 'Expected available in N seconds'", async () => {
    failBatchExports((_req, res) =>
      sendJson(res, 429, {
        type: 'throttled_error',
        code: 'throttled',
        detail: 'Request was throttled. Expected available in 12 seconds.',
        attr: null,
      }),
    );
    const { body } = await run(QUERY);
    expect(body.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 12 });
  });

  it('a redirect is never followed: UPSTREAM_ERROR and the other host gets nothing', async () => {
    const elsewhere = await startReferenceApi();
    try {
      failBatchExports((_req, res) => res.writeHead(302, { location: `${elsewhere.url}/api/steal/` }).end());
      const { body, text } = await run(QUERY);
      expectOnlyBatchExportsFailed(body, 'UPSTREAM_ERROR');
      expect(elsewhere.requests).toHaveLength(0);
      expectNothingInternal(text);
    } finally {
      await elsewhere.close();
    }
  });

  it('a 404 on a list is NOT_FOUND; a 404 on a lookup is null without an error', async () => {
    upstream.answerWith((_req, res) =>
      sendJson(res, 404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null }),
    );
    const { body } = await run(`{ organization(databaseId: "${ORG}") { name } project(databaseId: "9") { surveys { totalCount } } }`);
    expect(body.data).toEqual({ organization: null, project: { surveys: null } });
    expect(body.errors).toHaveLength(1);
    expect(body.errors?.[0]).toMatchObject({ path: ['project', 'surveys'], extensions: { code: 'NOT_FOUND', upstreamStatus: 404 } });
  });

  it('an unexpected upstream record shape nulls only the bad field', async () => {
    upstream.answerWith((req, res) => {
      if (req.path === '/api/organizations/') return sendJson(res, 200, page([{ ...org, created_at: 'not a date', member_count: 'many' }]));
      return sendJson(res, 200, page([]));
    });
    const { body } = await run(`{ organizations { nodes { name createdAt memberCount } } }`);
    expect(body.data.organizations.nodes[0]).toEqual({ name: 'Acme', createdAt: null, memberCount: null });
    expect(body.errors?.map((e: any) => e.path.at(-1)).sort()).toEqual(['createdAt', 'memberCount']);
  });
});
