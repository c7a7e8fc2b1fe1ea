// Batched requests (contract: Batching) over HTTP against the reference API: Apollo's BatchHttpLink
// sends three operations in one request and gets three results; a batch longer than MAX_BATCH_SIZE,
// or whose summed estimate is over MAX_UPSTREAM_CALLS, is refused whole before any upstream call.
import { ApolloClient, InMemoryCache } from '@apollo/client';
import { BatchHttpLink } from '@apollo/client/link/batch-http';
import { parse } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type HttpHarness, startHttpHarness } from '../support/http-server.ts';

let h: HttpHarness;

beforeAll(async () => {
  h = await startHttpHarness({}, { maxUpstreamCalls: 100 });
});
afterAll(() => h?.close());
beforeEach(() => h.api.clearRequests());

const postBatch = (operations: unknown[], headers: Record<string, string> = {}) =>
  fetch(h.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${h.api.keys.demo}`, ...headers },
    body: JSON.stringify(operations),
  });

/** A heavy dashboard: 1 + 5 × 4 = 21 estimated upstream calls. */
const HEAVY = `{ organizations(first: 5) { nodes { batchExports { totalCount } domains { totalCount } members { totalCount } invites { totalCount } } } }`;

describe('BatchHttpLink', () => {
  it('sends 3 operations in one HTTP request and gets 3 correct results', async () => {
    const bodies: unknown[] = [];
    const recording: typeof fetch = (input, init) => {
      bodies.push(JSON.parse(String(init?.body)));
      return fetch(input, init);
    };
    const client = new ApolloClient({
      link: new BatchHttpLink({
        uri: h.url,
        headers: { authorization: `Bearer ${h.api.keys.demo}` },
        fetch: recording,
        batchMax: 10,
        batchInterval: 20,
      }),
      cache: new InMemoryCache(),
    });
    const [count, names, missing] = await Promise.all([
      client.query({ query: parse('query Count { organizations { totalCount } }') }),
      client.query({ query: parse('query Names { organizations(first: 2) { nodes { name } } }') }),
      client.query({
        query: parse('query Missing($id: UUID!) { organization(databaseId: $id) { name } }'),
        variables: { id: '00000000-0000-4000-8000-000000000000' },
      }),
    ]);
    client.stop();

    expect(bodies).toHaveLength(1);
    expect((bodies[0] as unknown[]).map((operation) => (operation as { operationName: string }).operationName)).toEqual([
      'Count',
      'Names',
      'Missing',
    ]);
    expect(count.data).toEqual({ organizations: { __typename: 'OrganizationConnection', totalCount: 2 } });
    expect(names.data).toMatchObject({ organizations: { nodes: [{ name: 'Hedgehog Analytics' }, { name: 'Prickly Labs' }] } });
    expect(missing.data).toEqual({ organization: null });
  });
});

describe('refused whole, before any upstream call', () => {
  it('11 operations: HTTP 400, one error object, QUERY_TOO_COMPLEX with limit maxBatchSize', async () => {
    const response = await postBatch(Array.from({ length: 11 }, () => ({ query: '{ organizations { totalCount } }' })));
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(Array.isArray(body)).toBe(false);
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', limit: 'maxBatchSize', max: 10 });
    expect(h.api.requests).toEqual([]);
  });

  it('10 heavy operations, each under MAX_UPSTREAM_CALLS but over it together: limit maxUpstreamCalls with the summed estimate', async () => {
    const response = await postBatch(Array.from({ length: 10 }, () => ({ query: HEAVY })));
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body.errors[0].extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', limit: 'maxUpstreamCalls', estimate: 210, budget: 100 });
    expect(h.api.requests).toEqual([]);
  });

  it('counts a persisted entry by the text its hash stands for', async () => {
    const hash = await sha256(HEAVY);
    // Registered on its own first (APQ), then sent by hash only, four times with one more heavy by text.
    await fetch(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.api.keys.demo}` },
      body: JSON.stringify({ query: HEAVY, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }),
    });
    h.api.clearRequests();
    const byHash = { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } };
    const response = await postBatch([byHash, byHash, byHash, byHash, { query: HEAVY }]);
    expect((await response.json()).errors[0].extensions).toMatchObject({ limit: 'maxUpstreamCalls', estimate: 105 });
    expect(h.api.requests).toEqual([]);
  });

  it('an Idempotency-Key: HTTP 400, BAD_USER_INPUT', async () => {
    const response = await postBatch([{ query: '{ organizations { totalCount } }' }], { 'idempotency-key': 'k-1' });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(h.api.requests).toEqual([]);
  });
});

describe('each slot', () => {
  it('holds its own result: errors of one do not touch the others; @defer is ignored; a subscription is BAD_USER_INPUT', async () => {
    const response = await postBatch([
      { query: '{ organizations(first: 1) { nodes { name ... @defer { domains { totalCount } } } } }' },
      { query: '{ organizations(first: 101) { totalCount } }' },
      { query: 'subscription { domain(id: "RG9tYWluOng=") { id } }' },
    ]);
    expect(response.status).toBe(200);
    const [deferred, bad, subscription] = await response.json();
    expect(deferred).toEqual({ data: { organizations: { nodes: [{ name: 'Hedgehog Analytics', domains: { totalCount: 2 } }] } } });
    expect(bad.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    expect(subscription).toEqual({ errors: [expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } })] });
  });

  it('a plain (non-array) request answers as before', async () => {
    const response = await fetch(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.api.keys.demo}` },
      body: JSON.stringify({ query: '{ organizations { totalCount } }' }),
    });
    expect(await response.json()).toEqual({ data: { organizations: { totalCount: 2 } } });
  });
});

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Buffer.from(digest).toString('hex');
}
