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
  it('in a connection below a list: refused with no upstream call, located, with the path of its field (no index: the list is never fetched)', async () => {
    const result = await h.runCounting('{ organizations { nodes { domains(after: "garbage") { totalCount } } } }');
    expect(result.data).toBeNull();
    expect(codesOf(result.errors)).toEqual([['BAD_USER_INPUT', 'after']]);
    expect(result.errors?.[0]?.path).toEqual(['organizations', 'nodes', 'domains']);
    expect(result.errors?.[0]?.locations).toEqual([{ line: 1, column: 27 }]);
    expect(result.routes).toEqual([]);
  });

  it('a nested `first: 1000` carries the path of its field, aliases included, as a top-level one does', async () => {
    const nested = await h.runCounting('{ orgs: organizations(first: 2) { nodes { exports: batchExports(first: 1000) { totalCount } } } }');
    expect(nested.errors).toMatchObject([
      { message: '`first` must be between 0 and 100.', path: ['orgs', 'nodes', 'exports'], extensions: { code: 'BAD_USER_INPUT' } },
    ]);
    const top = await h.runCounting('{ organizations(first: 1000) { totalCount } }');
    expect(top.errors).toMatchObject([{ message: '`first` must be between 0 and 100.', path: ['organizations'] }]);
    expect([...nested.routes, ...top.routes]).toEqual([]);
  });

  it('an id of the wrong type names both types with their articles: "an Organization", "a BatchExport"', async () => {
    const exportId = Buffer.from(`BatchExport:${org}:00000000-0000-4000-8000-000000000000`).toString('base64');
    const wrong = await h.runCounting(
      `mutation { pauseBatchExport(input: { id: "${orgId}" }) { __typename } createInvite(input: { organizationId: "${exportId}", targetEmail: "a@example.com" }) { __typename } }`,
    );
    expect(wrong.errors?.map((error) => error.message)).toEqual([
      '`input.id` must be the id of a BatchExport, not an Organization.',
      '`input.organizationId` must be the id of an Organization, not a BatchExport.',
    ]);
    expect(wrong.routes).toEqual([]);
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
