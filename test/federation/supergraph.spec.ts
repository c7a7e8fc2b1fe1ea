// The gateway inside a real federation: composed (@theguild/federation-composition) with a small
// billing subgraph that adds `Organization.billingPlan` by `@key(fields: "databaseId")`, and served by
// Hive Gateway in-process. Every subgraph sits on a loopback port; ours runs on the reference API.
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { createGatewayRuntime, type GatewayRuntime } from '@graphql-hive/gateway';
import { composeServices } from '@theguild/federation-composition';
import { type ExecutionResult, parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { restGet } from '../support/rest.ts';
import { subscribe } from '../support/sse.ts';
import { fetchSubgraphSdl } from '../support/subgraph-sdl.ts';

const BILLING_SDL = /* GraphQL */ `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])

  scalar UUID

  type Organization @key(fields: "databaseId") {
    databaseId: UUID!
    "The organization's plan, known only to billing."
    billingPlan: String
  }

  type Query {
    "Organizations with an open invoice: billing knows only their REST ids."
    invoicedOrganizations: [Organization!]!
  }
`;

interface Listening {
  url: string;
  close(): Promise<void>;
}

async function listen(handler: RequestListener): Promise<Listening> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let api: ReferenceApi;
let gateway: Gateway;
let organizationsSubgraph: Listening;
let billingSubgraph: Listening;
let runtime: GatewayRuntime;
/** What the billing subgraph received: the representations and the headers of each request. */
const billing = { representations: [] as unknown[], headers: [] as Headers[] };
/** The demo key's organizations (REST ids) with their batch export counts. */
let organizations: { id: string; name: string; batchExports: number }[];

const planOf = (databaseId: string) => `plan-${databaseId.slice(0, 8)}`;

beforeAll(async () => {
  api = await startReferenceApi();
  gateway = createGateway({ upstreamUrl: api.url, subscriptions: { pollMs: 250 } });
  organizationsSubgraph = await listen(gateway.listener);

  const billingYoga = createYoga({
    logging: false,
    context: ({ request }) => {
      billing.headers.push(request.headers);
      return {};
    },
    schema: buildSubgraphSchema({
      typeDefs: parse(BILLING_SDL),
      resolvers: {
        Organization: {
          __resolveReference: (reference: { databaseId: string }) => {
            billing.representations.push(reference);
            return { databaseId: reference.databaseId, billingPlan: planOf(reference.databaseId) };
          },
        },
        Query: {
          invoicedOrganizations: () => organizations.map(({ id }) => ({ databaseId: id, billingPlan: planOf(id) })),
        },
      },
    }),
  });
  billingSubgraph = await listen(billingYoga);

  const composed = composeServices([
    { name: 'organizations', typeDefs: await fetchSubgraphSdl(organizationsSubgraph.url), url: organizationsSubgraph.url },
    { name: 'billing', typeDefs: parse(BILLING_SDL), url: billingSubgraph.url },
  ]);
  expect(composed.errors ?? []).toEqual([]);

  runtime = createGatewayRuntime({
    supergraph: composed.supergraphSdl as string,
    logging: false,
    // What the README recommends: the caller's key and request id go to every subgraph.
    propagateHeaders: {
      fromClientToSubgraphs: ({ request }) => ({
        authorization: request.headers.get('authorization'),
        'x-request-id': request.headers.get('x-request-id'),
      }),
    },
  });

  const list = await restGet<{ results: { id: string; name: string }[] }>(api.url, '/api/organizations/?limit=100', api.keys.demo);
  organizations = await Promise.all(
    list.results.map(async ({ id, name }) => ({
      id,
      name,
      batchExports: (await restGet<{ count: number }>(api.url, `/api/organizations/${id}/batch_exports/?limit=1`, api.keys.demo)).count,
    })),
  );
  expect(organizations.length).toBeGreaterThan(1);
});

afterAll(async () => {
  await runtime?.dispose();
  await billingSubgraph?.close();
  await organizationsSubgraph?.close();
  await gateway?.close();
  await api?.close();
});

async function federated<T>(query: string, headers: Record<string, string>) {
  api.clearRequests();
  billing.representations.length = 0;
  billing.headers.length = 0;
  const response = await runtime.fetch('http://supergraph.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as ExecutionResult<T>;
  const routes = api.requests.map((r) => `${r.method} ${r.path}${r.query.limit ? `?limit=${r.query.limit}&offset=${r.query.offset}` : ''}`);
  return { ...body, routes };
}

interface OrganizationResult {
  databaseId: string;
  name: string;
  billingPlan: string;
  batchExports: { totalCount: number };
}

describe('a supergraph of this gateway and a billing subgraph (Hive Gateway)', () => {
  it("answers a query across both subgraphs, with the caller's key and request id on every REST call", async () => {
    const { data, errors, routes } = await federated<{ organizations: { nodes: OrganizationResult[] } }>(
      `{ organizations(first: 100) { nodes { databaseId name billingPlan batchExports { totalCount } } } }`,
      { authorization: `Bearer ${api.keys.demo}`, 'x-request-id': 'federated-req-1' },
    );
    expect(errors).toBeUndefined();
    expect(data?.organizations.nodes).toEqual(
      organizations.map((o) => ({
        databaseId: o.id,
        name: o.name,
        billingPlan: planOf(o.id),
        batchExports: { totalCount: o.batchExports },
      })),
    );

    // Billing got one representation per organization, by the key it declared.
    expect(billing.representations).toEqual(organizations.map((o) => ({ __typename: 'Organization', databaseId: o.id })));
    // Every subgraph call carries the caller's key and request id.
    expect(billing.headers.length).toBeGreaterThan(0);
    for (const headers of billing.headers) {
      expect(headers.get('authorization')).toBe(`Bearer ${api.keys.demo}`);
      expect(headers.get('x-request-id')).toBe('federated-req-1');
    }

    // Our subgraph made the calls it makes standalone: the list, then one smallest page per count.
    expect(routes.sort()).toEqual(
      [
        'GET /api/organizations/?limit=100&offset=0',
        ...organizations.map((o) => `GET /api/organizations/${o.id}/batch_exports/?limit=1&offset=0`),
      ].sort(),
    );
    for (const call of api.requests) {
      expect(call.headers.authorization).toBe(`Bearer ${api.keys.demo}`);
      expect(call.headers['x-request-id']).toBe('federated-req-1');
    }
  });

  it('resolves organizations that billing returns through our _entities, by databaseId, in one batch', async () => {
    const { data, errors, routes } = await federated<{ invoicedOrganizations: OrganizationResult[] }>(
      `{ invoicedOrganizations { databaseId billingPlan name batchExports { totalCount } } }`,
      { authorization: `Bearer ${api.keys.demo}`, 'x-request-id': 'federated-req-2' },
    );
    expect(errors).toBeUndefined();
    expect(data?.invoicedOrganizations).toEqual(
      organizations.map((o) => ({
        databaseId: o.id,
        billingPlan: planOf(o.id),
        name: o.name,
        batchExports: { totalCount: o.batchExports },
      })),
    );
    // All representations arrive in one `_entities` request and load as one batch: one retrieve per
    // organization, sent together (contract: Identifiers), plus one count per organization.
    expect(routes.sort()).toEqual(
      [
        ...organizations.map((o) => `GET /api/organizations/${o.id}/`),
        ...organizations.map((o) => `GET /api/organizations/${o.id}/batch_exports/?limit=1&offset=0`),
      ].sort(),
    );
    for (const call of api.requests) expect(call.headers.authorization).toBe(`Bearer ${api.keys.demo}`);
  });

  it('without a key, answers UNAUTHENTICATED and makes no REST call', async () => {
    const { data, errors, routes } = await federated<{ organizations: unknown }>(`{ organizations { nodes { name billingPlan } } }`, {});
    expect(data?.organizations ?? null).toBeNull();
    expect(errors?.map((e) => e.extensions?.code)).toContain('UNAUTHENTICATED');
    expect(routes).toEqual([]);
  });

  it('passes a subscription through over SSE, both hops, and pushes a mutation made through the supergraph', async () => {
    const org = organizations[0] as { id: string };
    const exports = await restGet<{ results: { id: string; paused: boolean }[] }>(
      api.url,
      `/api/organizations/${org.id}/batch_exports/?limit=1`,
      api.keys.demo,
    );
    const record = exports.results[0] as { id: string; paused: boolean };
    const id = btoa(`BatchExport:${org.id}:${record.id}`);
    const subscription = await subscribe(
      'http://supergraph.test/graphql',
      'subscription ($id: ID!) { batchExport(id: $id) { databaseId paused } }',
      { id },
      api.keys.demo,
      (url, init) => Promise.resolve(runtime.fetch(url, init)),
    );
    expect(subscription.contentType).toMatch(/^text\/event-stream/);
    const [first] = await subscription.waitForEvents(1);
    expect(first).toEqual({ data: { batchExport: { databaseId: record.id, paused: record.paused } } });
    expect(gateway.subscriptionStats()).toEqual({ streams: 1, polls: 1 });
    const mutation = record.paused ? 'unpauseBatchExport' : 'pauseBatchExport';
    const changed = await federated(`mutation { ${mutation}(input: { id: "${id}" }) { __typename } }`, {
      authorization: `Bearer ${api.keys.demo}`,
    });
    expect(changed.errors).toBeUndefined();
    const [, second] = await subscription.waitForEvents(2);
    expect(second).toEqual({ data: { batchExport: { databaseId: record.id, paused: !record.paused } } });
    // The client goes away: Hive Gateway closes its stream to us, and our poll stops.
    await subscription.close();
    await expect.poll(() => gateway.subscriptionStats(), { timeout: 2000 }).toEqual({ streams: 0, polls: 0 });
  });
});
