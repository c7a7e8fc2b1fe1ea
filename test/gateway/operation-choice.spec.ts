// A document may hold several operations; `operationName` picks the one that runs, every time. The
// compiled code is kept per document and operation name: with graphql-jit's envelop plugin it was
// kept per document, and the second operation asked for ran the first one's code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HttpHarness, startHttpHarness } from '../support/http-server.ts';

let h: HttpHarness;
beforeAll(async () => {
  h = await startHttpHarness();
});
afterAll(() => h.close());

const DOCUMENT = `
  query Count { organizations(first: 1) { totalCount } }
  query Names { organizations(first: 2) { nodes { name } } }
  query Typename { __typename }
`;

async function post(operationName: string) {
  h.api.clearRequests();
  const response = await fetch(h.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${h.api.keys.demo}` },
    body: JSON.stringify({ query: DOCUMENT, operationName }),
  });
  return { status: response.status, body: await response.json(), calls: h.api.requests.map((r) => `${r.method} ${r.path}`) };
}

describe('a document with several operations', () => {
  it('runs the operation named, whichever ran before it', async () => {
    const count = await post('Count');
    const names = await post('Names');
    const typename = await post('Typename');
    const countAgain = await post('Count');

    expect(count).toMatchObject({ status: 200, body: { data: { organizations: { totalCount: 2 } } } });
    expect(names.body).toEqual({ data: { organizations: { nodes: [{ name: expect.any(String) }, { name: expect.any(String) }] } } });
    expect(typename).toEqual({ status: 200, body: { data: { __typename: 'Query' } }, calls: [] });
    expect(countAgain.body).toEqual(count.body);
    expect(count.calls).toEqual(['GET /api/organizations/']);
    expect(names.calls).toEqual(['GET /api/organizations/']);
  });
});
