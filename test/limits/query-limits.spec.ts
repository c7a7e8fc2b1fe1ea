// Query shape limits (GraphQL Armor) and request limits: each refusal is QUERY_TOO_COMPLEX naming
// its limit, and none reaches the upstream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({}, { queryLimits: { maxDepth: 5, maxAliases: 3, maxTokens: 120, maxDirectives: 2 }, maxRequestBytes: 2048 });
});
afterAll(() => h.close());

describe('query limits', () => {
  it.each([
    ['maxDepth', `{ organizations { nodes { batchExports { nodes { latestRuns { status } } } } } }`],
    ['maxAliases', `{ a: organizations { totalCount } b: organizations { totalCount } c: organizations { totalCount } d: organizations { totalCount } }`],
    ['maxTokens', `{ organizations { nodes { ${Array.from({ length: 150 }, () => 'name').join(' ')} } } }`],
    ['maxDirectives', `{ organizations @include(if: true) { totalCount @skip(if: false) } project(databaseId: "1") @include(if: true) { name } }`],
  ])('refuses an operation over %s with QUERY_TOO_COMPLEX and no upstream call', async (limit, query) => {
    const { errors, calls } = await h.runCounting(query);
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit });
    expect(errors?.[0]?.message).toMatch(/limit of \d+ exceeded/);
    expect(calls).toHaveLength(0);
  });

  it('runs operations within every limit', async () => {
    const { errors } = await h.runCounting(`{ organizations(first: 1) { nodes { name } } }`);
    expect(errors).toBeUndefined();
  });

  it('hides field suggestions from callers without a key, and shows them with one', async () => {
    const anonymous = await h.runCounting(`{ organizations { nodes { nmae } } }`, undefined, { key: null });
    expect(anonymous.errors?.[0]?.message).toContain('Cannot query field "nmae"');
    expect(anonymous.errors?.[0]?.message).not.toContain('Did you mean');
    const known = await h.runCounting(`{ organizations { nodes { nmae } } }`);
    expect(known.errors?.[0]?.message).toContain('Did you mean "name"?');
  });
});

describe('request limits', () => {
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    h.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.api.keys.demo}`, ...headers },
      body,
      // A ReadableStream body is sent without Content-Length.
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
  const big = JSON.stringify({ query: `{ organizations { totalCount } }`, variables: { pad: 'x'.repeat(4000) } });

  it('refuses a body over MAX_REQUEST_BYTES by its Content-Length with 413', async () => {
    h.api.clearRequests();
    const response = await post(big, { 'content-length': String(Buffer.byteLength(big)) });
    expect(response.status).toBe(413);
    expect(((await response.json()) as any).errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxRequestBytes' });
    expect(h.api.requests).toHaveLength(0);
  });

  it('refuses a streamed body that grows past the limit with 413', async () => {
    h.api.clearRequests();
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const response = await post(stream);
    expect(response.status).toBe(413);
    expect(((await response.json()) as any).errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxRequestBytes' });
    expect(h.api.requests).toHaveLength(0);
  });

  it('accepts a streamed body within the limit', async () => {
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify({ query: '{ organizations { totalCount } }' })));
        controller.close();
      },
    });
    const response = await post(stream);
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).data.organizations.totalCount).toBeGreaterThan(0);
  });

  it('refuses batched operations (a JSON array)', async () => {
    h.api.clearRequests();
    const response = await post(JSON.stringify([{ query: '{ organizations { totalCount } }' }, { query: '{ organizations { totalCount } }' }]));
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(await response.json())).toMatch(/errors/);
    expect(h.api.requests).toHaveLength(0);
  });
});

describe('malformed requests', () => {
  it('answer a clear error without quoting the body back or any internal detail', async () => {
    const response = await h.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', authorization: `Bearer ${h.api.keys.demo}` },
      body: '{"query": "{ secret_phx_abc',
    });
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(JSON.parse(text).errors[0].message).toBe('POST body sent invalid JSON.');
    expect(text).not.toContain('secret_phx_abc');
    expect(text).not.toContain('originalError');
  });
});
