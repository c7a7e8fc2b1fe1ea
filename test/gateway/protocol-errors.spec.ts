// A request the gateway cannot run is the caller's error, with a code, and nothing reaches the
// upstream or the process's stdout/stderr: malformed parameters (BAD_REQUEST, HTTP 400), an
// operation the schema cannot run (GRAPHQL_VALIDATION_FAILED), variables of the wrong type
// (BAD_USER_INPUT).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReferenceApi } from '../../src/reference-api/index.ts';
import { type HttpHarness, startHttpHarness } from '../support/http-server.ts';
import { startMain } from '../support/main-process.ts';

let h: HttpHarness;
beforeAll(async () => {
  h = await startHttpHarness();
});
afterAll(() => h.close());

interface Answer {
  status: number;
  body: { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

/** Sends one request over HTTP with the demo key; `init` may replace the method, headers and body. */
async function send(search: string, init: RequestInit = {}, accept = 'application/graphql-response+json'): Promise<Answer> {
  const response = await fetch(`${h.url}${search}`, {
    ...init,
    headers: { accept, authorization: `Bearer ${h.api.keys.demo}`, ...(init.headers as Record<string, string>) },
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}
const get = (params: Record<string, string>, accept?: string) => send(`?${new URLSearchParams(params)}`, {}, accept);
const post = (body: unknown, accept?: string) =>
  send('', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, accept);

/** The request was refused with this status and code, and no upstream call was made. */
function expectRefused({ status, body }: Answer, expected: { status: number; code: string }) {
  expect(body.data).toBeUndefined();
  expect({ status, codes: body.errors?.map((error) => error.extensions?.code) }).toEqual({
    status: expected.status,
    codes: body.errors?.map(() => expected.code),
  });
  expect(body.errors?.length).toBeGreaterThan(0);
  expect(h.api.requests).toEqual([]);
}

/** Any text that JSON.parse refuses, or whose value is neither an object nor null: what `variables` and `extensions` must not be. */
const notAJsonObject = fc.oneof(
  fc.string({ minLength: 1 }).filter((text) => {
    try {
      const value: unknown = JSON.parse(text);
      return typeof value !== 'object' || Array.isArray(value);
    } catch {
      return true;
    }
  }),
  fc
    .jsonValue()
    .filter((value) => typeof value !== 'object' || Array.isArray(value))
    .map((value) => JSON.stringify(value)),
);

const QUERY = 'query Orgs($first: Int) { organizations(first: $first) { totalCount } }';

describe('malformed request parameters', () => {
  it('GET with `variables` or `extensions` that are not JSON objects is BAD_REQUEST (400), never INTERNAL_SERVER_ERROR', async () => {
    h.api.clearRequests();
    expectRefused(await get({ query: QUERY, variables: '{bad' }), { status: 400, code: 'BAD_REQUEST' });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('variables', 'extensions'),
        notAJsonObject,
        fc.constantFrom('application/json', 'application/graphql-response+json'),
        async (name, text, accept) => {
          expectRefused(await get({ query: QUERY, [name]: text }, accept), { status: 400, code: 'BAD_REQUEST' });
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a form-encoded POST with bad JSON `variables`, or a chunked body of bad JSON, is BAD_REQUEST too', async () => {
    h.api.clearRequests();
    const form = await send('', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: QUERY, variables: '{"first": 1' }).toString(),
    });
    expectRefused(form, { status: 400, code: 'BAD_REQUEST' });
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"query": "{ organizations { totalCount } }"'));
        controller.close();
      },
    });
    // A stream is sent chunked, without Content-Length: the body limit reads it and parses it.
    const chunked = await send('', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expectRefused(chunked, { status: 400, code: 'BAD_REQUEST' });
  });

  it('a POST whose `query`, `variables`, `operationName` or `extensions` has the wrong type is BAD_REQUEST (400)', async () => {
    h.api.clearRequests();
    const wrong = {
      query: fc.oneof(fc.integer(), fc.boolean(), fc.array(fc.string()), fc.dictionary(fc.string(), fc.string())),
      variables: fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(fc.integer())),
      operationName: fc.oneof(fc.integer(), fc.boolean(), fc.array(fc.string()), fc.dictionary(fc.string(), fc.string())),
      extensions: fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(fc.integer())),
    };
    const request = fc.oneof(
      ...Object.entries(wrong).map(([name, value]) => value.map((bad) => ({ query: QUERY, operationName: 'Orgs', [name]: bad }))),
    );
    await fc.assert(
      fc.asyncProperty(request, fc.constantFrom('application/json', 'application/graphql-response+json'), async (body, accept) => {
        expectRefused(await post(body, accept), { status: 400, code: 'BAD_REQUEST' });
      }),
      { numRuns: 60 },
    );
    expectRefused(await post({ query: null }), { status: 400, code: 'BAD_REQUEST' });
  });
});

describe('a subscription', () => {
  it('of a field the Subscription type lacks, or of __typename, is refused in validation, with no upstream call', async () => {
    h.api.clearRequests();
    const refusals = {
      'subscription { __typename }': 'Anonymous Subscription must not select an introspection top level field.',
      'subscription Watch { organizations { totalCount } }':
        'Cannot query field "organizations" on type "Subscription". Did you mean "organizationMembers"?',
    };
    for (const [query, message] of Object.entries(refusals)) {
      const answer = await post({ query });
      expectRefused(answer, { status: 400, code: 'GRAPHQL_VALIDATION_FAILED' });
      expect(answer.body.errors?.[0]?.message).toBe(message);
    }
    expectRefused(await get({ query: 'subscription { __typename }' }), { status: 400, code: 'GRAPHQL_VALIDATION_FAILED' });
  });
});

describe('variables that do not fit their types', () => {
  const cases = [
    {
      query: 'query ($first: Int) { organizations(first: $first) { totalCount } }',
      // Int is a 32-bit whole number.
      wrong: fc.oneof(
        fc.string(),
        fc.boolean(),
        fc.double({ noInteger: true, noDefaultInfinity: true, noNaN: true }),
        fc.integer({ min: 2 ** 31, max: Number.MAX_SAFE_INTEGER }),
        fc.array(fc.integer(), { minLength: 1 }),
        fc.dictionary(fc.string(), fc.integer(), { minKeys: 1 }),
      ),
    },
    {
      query: 'query ($id: UUID!) { organization(databaseId: $id) { name } }',
      wrong: fc.oneof(
        fc.constant(null),
        fc.string().filter((text) => !/^[0-9a-f]{8}-([0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(text)),
        fc.integer(),
        fc.boolean(),
      ),
    },
    {
      query: 'mutation ($input: PauseBatchExportInput!) { pauseBatchExport(input: $input) { __typename } }',
      wrong: fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.constant({}), fc.record({ unknownField: fc.string() })),
    },
  ];

  it('are BAD_USER_INPUT: HTTP 400 for application/graphql-response+json, 200 for application/json, no upstream call', async () => {
    h.api.clearRequests();
    const request = fc.oneof(...cases.map(({ query, wrong }) => wrong.map((value) => ({ query, value }))));
    await fc.assert(
      fc.asyncProperty(request, fc.boolean(), async ({ query, value }, graphqlResponse) => {
        const name = /\$(\w+)/.exec(query)?.[1] as string;
        const accept = graphqlResponse ? 'application/graphql-response+json' : 'application/json';
        expectRefused(await post({ query, variables: { [name]: value } }, accept), {
          status: graphqlResponse ? 400 : 200,
          code: 'BAD_USER_INPUT',
        });
      }),
      { numRuns: 60 },
    );
  });

  it('say what is wrong, with the scalar’s own reason', async () => {
    h.api.clearRequests();
    const { body } = await post({
      query: 'query ($id: UUID!) { organization(databaseId: $id) { name } }',
      variables: { id: 'not-a-uuid' },
    });
    expect(body.errors).toEqual([
      {
        message: expect.stringMatching(/^Variable "\$id" got invalid value "not-a-uuid"; Expected type UUID\. .*UUID/),
        extensions: { code: 'BAD_USER_INPUT' },
      },
    ]);
    const missing = await post({ query: 'query ($first: Int!) { organizations(first: $first) { totalCount } }' });
    expect(missing.body.errors?.[0]).toMatchObject({
      message: 'Variable "$first" of required type "Int!" was not provided.',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });
});

describe('the gateway process', () => {
  it('prints nothing to stdout or stderr for any of these requests: everything goes through its log', async () => {
    const api = await startReferenceApi();
    const directory = mkdtempSync(join(tmpdir(), 'protocol-errors-'));
    const logFile = join(directory, 'gateway.ndjson');
    const main = startMain({ UPSTREAM_URL: api.url, LOG_FILE: logFile, LOG_LEVEL: 'info' });
    try {
      const { output: banner, url: processUrl } = await main.ready;
      await expect.poll(() => api.requests.length).toBe(1); // the start-up probe (no key), before any request
      api.clearRequests();
      const request = (search: string, init: RequestInit = {}) =>
        fetch(`${processUrl}${search}`, {
          ...init,
          headers: { authorization: `Bearer ${api.keys.demo}`, ...(init.headers as Record<string, string>) },
        });
      const postJson = (body: unknown) =>
        request('', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answers = [
        await request(`?${new URLSearchParams({ query: QUERY, variables: '{bad' })}`),
        await request(`?${new URLSearchParams({ query: '{ __typename }', extensions: '{bad' })}`),
        await postJson({ query: 'subscription { __typename }' }),
        await postJson({ query: 'subscription Watch { organizations { totalCount } }' }),
        await postJson({ query: QUERY, variables: { first: 'many' } }),
        await postJson({ query: QUERY, operationName: 42 }),
        await postJson({
          query: 'query ($r: [_Any!]!) { _entities(representations: $r) { __typename } }',
          variables: { r: [{ __typename: 'Nope' }, {}] },
        }),
        await postJson({
          query: 'query ($id: ID!) { _entities(representations: [{ __typename: "BatchExport", id: $id }]) { __typename } }',
          variables: { id: 'x' },
        }),
        await postJson({ query: `query ${'N'.repeat(90_000)} { __typename }` }),
      ];
      const bodies = await Promise.all(answers.map(async (answer) => (await answer.json()) as Answer['body']));
      expect(bodies.flatMap((body) => body.errors?.map((error) => error.extensions?.code) ?? [])).not.toContain('INTERNAL_SERVER_ERROR');
      expect(api.requests).toEqual([]);

      const lines = readFileSync(logFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { msg: string });
      expect(lines.filter((line) => line.msg === 'graphql request')).toHaveLength(answers.length);
      expect(main.output()).toBe(banner);
    } finally {
      main.child.kill('SIGTERM');
      await main.exited;
      await api.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
