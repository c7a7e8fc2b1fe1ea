// Bad arguments anywhere in an operation (contract: Errors, "BAD_USER_INPUT ...: no upstream call"):
// a page size out of range, a cursor the gateway did not make, a malformed global id, wherever the
// field stands, are refused before the operation runs, against the reference API. Before, they failed
// only when their field resolved, after the fields above and beside them had called the upstream,
// and, in a mutation's payload, after the write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.ts';
import { restGet } from '../support/rest.ts';

let h: Harness;
let org: string;
let orgId: string;

beforeAll(async () => {
  h = await startHarness();
  const orgs = await restGet<{ results: { id: string }[] }>(h.api.url, '/api/organizations/', h.api.keys.demo);
  org = (orgs.results[0] as { id: string }).id;
  orgId = Buffer.from(`Organization:${org}`).toString('base64');
});
afterAll(() => h.close());

const codesOf = (errors: readonly { extensions?: Record<string, unknown> }[] | undefined) =>
  errors?.map((error) => [error.extensions?.code, error.extensions?.argumentName]);

describe('a bad argument below or beside other fields', () => {
  it('in a connection below a list: refused with no upstream call, located but without a path (the list index is not known yet)', async () => {
    const result = await h.runCounting('{ organizations { nodes { domains(after: "garbage") { totalCount } } } }');
    expect(result.data).toBeNull();
    expect(codesOf(result.errors)).toEqual([['BAD_USER_INPUT', 'after']]);
    expect(result.errors?.[0]?.path).toBeUndefined();
    expect(result.errors?.[0]?.locations).toEqual([{ line: 1, column: 27 }]);
    expect(result.routes).toEqual([]);
  });

  it('in a lookup beside a list: refused with no upstream call, at its path', async () => {
    const result = await h.runCounting('{ organizations { totalCount } node(id: "garbage") { id } }');
    expect(result.data).toBeNull();
    expect(codesOf(result.errors)).toEqual([['BAD_USER_INPUT', 'id']]);
    expect(result.errors?.[0]?.path).toEqual(['node']);
    expect(result.routes).toEqual([]);
  });

  it('every bad argument is one error, through fragments and with variables', async () => {
    const result = await h.runCounting(
      `query ($size: Int, $ids: [ID!]!) {
        organization(databaseId: "${org}") { ...Lists }
        nodes(ids: $ids) { id }
      }
      fragment Lists on Organization { batchExports(first: $size) { totalCount } invites(last: -1) { totalCount } }`,
      { size: 101, ids: [orgId, 'garbage'] },
    );
    expect(result.data).toBeNull();
    expect(codesOf(result.errors)).toEqual([
      ['BAD_USER_INPUT', 'first'],
      ['BAD_USER_INPUT', 'last'],
      ['BAD_USER_INPUT', 'ids[1]'],
    ]);
    expect(result.errors?.map((error) => error.path)).toEqual([['organization', 'batchExports'], ['organization', 'invites'], ['nodes']]);
    expect(result.routes).toEqual([]);
  });

  it('a field that will not run is not checked (@skip, @include)', async () => {
    const result = await h.runCounting(
      `query ($full: Boolean!) {
        organization(databaseId: "${org}") { name batchExports(first: 500) @include(if: $full) { totalCount } }
        node(id: "garbage") @skip(if: true) { id }
      }`,
      { full: false },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual({ organization: { name: expect.any(String) } });
    expect(result.routes).toEqual([`GET /api/organizations/${org}/`]);
  });
});

describe('a required argument given null through a variable with a default', () => {
  // Validation lets `$id: ID = "…"` stand where `ID!` is needed; an explicit null then fails only
  // when the argument is read.
  it('in a query: refused with no upstream call (the field beside it had been fetched, and the error was "Unexpected error.")', async () => {
    const result = await h.runCounting('query ($id: ID = "x") { organizations { totalCount } node(id: $id) { id } }', { id: null });
    expect(result.data).toBeNull();
    expect(codesOf(result.errors)).toEqual([['BAD_USER_INPUT', undefined]]);
    expect(result.errors?.[0]?.message).toMatch(/must not be null/);
    expect(result.routes).toEqual([]);
  });

  it('in the second of two mutations: refused before the first is sent (graphql-jit never answered it)', async () => {
    const result = await h.runCounting(
      `mutation ($a: UpdateOrganizationInput!, $b: UpdateOrganizationInput = { id: "x" }) {
        a: updateOrganization(input: $a) { __typename }
        b: updateOrganization(input: $b) { __typename }
      }`,
      { a: { id: orgId, name: 'renamed' }, b: null },
    );
    expect(result.data).toBeNull();
    expect(codesOf(result.errors)).toEqual([['BAD_USER_INPUT', undefined]]);
    expect(result.errors?.[0]?.path).toEqual(['b']);
    expect(result.routes).toEqual([]);
  });
});

describe('a bad argument in a mutation’s payload', () => {
  it('a cursor of another list is refused before the write is sent', async () => {
    const { data } = await h.run<{ organization: { batchExports: { pageInfo: { endCursor: string } } } }, unknown>(
      `{ organization(databaseId: "${org}") { batchExports(first: 1) { pageInfo { endCursor } } } }`,
    );
    const result = await h.runCounting(
      `mutation ($id: ID!, $after: String) {
        updateOrganization(input: { id: $id, name: "renamed" }) {
          ... on UpdateOrganizationPayload { organization { domains(after: $after) { totalCount } } }
        }
      }`,
      { id: orgId, after: data.organization.batchExports.pageInfo.endCursor },
    );
    expect(result.data).toBeNull();
    expect(codesOf(result.errors)).toEqual([['BAD_USER_INPUT', 'after']]);
    expect(result.routes).toEqual([]);
  });

  it('is refused before the write is sent', async () => {
    const result = await h.runCounting(
      `mutation ($id: ID!) {
        updateOrganization(input: { id: $id, name: "renamed" }) {
          ... on UpdateOrganizationPayload { organization { name domains(first: 1000) { totalCount } } }
        }
      }`,
      { id: orgId },
    );
    expect(result.data).toBeNull();
    expect(codesOf(result.errors)).toEqual([['BAD_USER_INPUT', 'first']]);
    expect(result.errors?.[0]?.path).toEqual(['updateOrganization', 'organization', 'domains']);
    expect(result.routes).toEqual([]);
  });
});
