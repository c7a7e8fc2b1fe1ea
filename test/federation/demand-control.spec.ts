// Hive Gateway's demand control over this subgraph (contract: Cost directives). The supergraph is
// composed by @apollo/composition from what `_service { sdl }` answers; the subgraph runs on the
// reference API on a loopback port. For the four operations the router's estimate is at least
// the gateway's own fan-out estimate and at most twice it; with its maxCost one below the dashboard's
// cost, the dashboard is refused before any subgraph fetch or upstream call, and a cheaper one is served.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { composeServices } from '@apollo/composition';
import { createGatewayRuntime, type GatewayRuntime } from '@graphql-hive/gateway';
import { type ExecutionResult, parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import type { CostReport } from '../../src/observability/cost-extension.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { restGet } from '../support/rest.ts';
import { fetchSubgraphSdl } from '../support/subgraph-sdl.ts';

let api: ReferenceApi;
let gateway: Gateway;
let subgraph: { url: string; fetches: number; close(): Promise<void> };
let supergraph: string;
const runtimes: GatewayRuntime[] = [];
let organizationId: string;
let memberId: string;

beforeAll(async () => {
  api = await startReferenceApi();
  gateway = createGateway({ upstreamUrl: api.url });
  const server = createServer((request, response) => {
    subgraph.fetches += 1;
    gateway.listener(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  subgraph = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    fetches: 0,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  const sdl = await fetchSubgraphSdl(subgraph.url);
  // What a composition tool fetches is the committed subgraph.graphql.
  expect(print(sdl)).toBe(print(parse(readFileSync(new URL('../../subgraph.graphql', import.meta.url), 'utf8'))));
  const composed = composeServices([{ name: 'organizations', typeDefs: sdl, url: subgraph.url }]);
  expect(composed.errors ?? []).toEqual([]);
  supergraph = composed.supergraphSdl ?? '';

  const organizations = await restGet<{ results: { id: string }[] }>(api.url, '/api/organizations/', api.keys.demo);
  organizationId = organizations.results[0]?.id ?? '';
  const members = await direct<{ organization: { members: { nodes: { id: string }[] } } }>(
    `{ organization(databaseId: "${organizationId}") { members(first: 1) { nodes { id } } } }`,
  );
  memberId = members.body.data?.organization.members.nodes[0]?.id ?? '';
  expect(memberId).not.toBe('');
});

afterAll(async () => {
  for (const runtime of runtimes) await runtime.dispose();
  await subgraph?.close();
  await gateway?.close();
  await api?.close();
});

/** Hive Gateway over the subgraph, with the caller's key propagated and demand control on. */
function router(maxCost?: number): GatewayRuntime {
  const runtime = createGatewayRuntime({
    supergraph,
    logging: false,
    demandControl: { maxCost, includeExtensionMetadata: true },
    propagateHeaders: { fromClientToSubgraphs: ({ request }) => ({ authorization: request.headers.get('authorization') }) },
  });
  runtimes.push(runtime);
  return runtime;
}

const post = (query: string, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${api.keys.demo}`, ...headers },
  body: JSON.stringify({ query }),
});

/** The subgraph asked directly, with `x-cost: 1`: its answer carries the gateway's own estimate. */
async function direct<T>(query: string) {
  const response = await fetch(subgraph.url, post(query, { 'x-cost': '1' }));
  const body = (await response.json()) as ExecutionResult<T, { cost: CostReport }>;
  return { body, estimated: body.extensions?.cost.estimated ?? Number.NaN };
}

/** Through the router: its answer, its estimate, and the subgraph fetches and upstream calls it caused. */
async function routed(runtime: GatewayRuntime, query: string) {
  subgraph.fetches = 0;
  api.clearRequests();
  const response = await runtime.fetch('http://router.test/graphql', post(query));
  const body = (await response.json()) as ExecutionResult<Record<string, unknown>, { cost?: { estimated: number } }>;
  const estimated =
    body.extensions?.cost?.estimated ?? (body.errors?.[0]?.extensions?.cost as { estimated?: number } | undefined)?.estimated;
  return { body, estimated, subgraphFetches: subgraph.fetches, upstreamCalls: api.requests.length };
}

const DASHBOARD = `{ organizations(first: 5) { nodes { name
  batchExports { nodes { name } } domains { nodes { domain } } invites { nodes { targetEmail } } members { nodes { level } } } } }`;

const operations = () => ({
  dashboard: DASHBOARD,
  'an organization with batchExports(first: 100)': `{ organization(databaseId: "${organizationId}") { batchExports(first: 100) { nodes { name } } } }`,
  'node(id:) of a member': `{ node(id: "${memberId}") { ... on Member { level } } }`,
  'pipeline destinations with two calls per record': `{ organization(databaseId: "${organizationId}") {
    pipelineDestinations(first: 10) { nodes { name source checkForUpdates { name } } } } }`,
});

describe("Hive Gateway's demand control over the subgraph", () => {
  it("estimates each of the issue's four operations at least at the gateway's own estimate, and at most twice it", async () => {
    const runtime = router();
    const seen: Record<string, { gateway: number; router: number | undefined }> = {};
    for (const [name, query] of Object.entries(operations())) {
      const own = await direct(query);
      expect(own.body.errors).toBeUndefined();
      const through = await routed(runtime, query);
      expect(through.body.errors).toBeUndefined();
      expect(through.body.data).toEqual(own.body.data);
      seen[name] = { gateway: own.estimated, router: through.estimated };
    }
    expect(seen).toEqual({
      dashboard: { gateway: 21, router: 21 },
      'an organization with batchExports(first: 100)': { gateway: 2, router: 2 },
      'node(id:) of a member': { gateway: 10, router: 11 },
      'pipeline destinations with two calls per record': { gateway: 22, router: 22 },
    });
    for (const { gateway: own, router: priced } of Object.values(seen)) {
      expect(priced).toBeGreaterThanOrEqual(own);
      expect(priced).toBeLessThanOrEqual(2 * own);
    }
  });

  it("with maxCost one below the dashboard's cost, refuses the dashboard before any fetch, and serves a cheaper operation", async () => {
    const dashboardCost = (await direct(DASHBOARD)).estimated;
    const runtime = router(dashboardCost - 1);

    const refused = await routed(runtime, DASHBOARD);
    expect(refused.body.data ?? null).toBeNull();
    expect(refused.body.errors?.map((e) => e.extensions?.code)).toEqual(['COST_ESTIMATED_TOO_EXPENSIVE']);
    expect(refused.body.errors?.[0]?.extensions?.cost).toEqual({ estimated: dashboardCost, max: dashboardCost - 1 });
    expect(refused.subgraphFetches).toBe(0);
    expect(refused.upstreamCalls).toBe(0);

    const cheaper = await routed(runtime, operations()['an organization with batchExports(first: 100)']);
    expect(cheaper.body.errors).toBeUndefined();
    expect(cheaper.body.data).toEqual({ organization: { batchExports: { nodes: expect.any(Array) } } });
    expect(cheaper.estimated).toBe(2);
    expect(cheaper.subgraphFetches).toBe(1);
    expect(cheaper.upstreamCalls).toBe(2);
  });

  it('prices a connection without first or last as one record, not 20 (the caveat docs/federation.md names)', async () => {
    const query = '{ organizations { nodes { batchExports { totalCount } } } }';
    expect((await direct(query)).estimated).toBe(21);
    expect((await routed(router(), query)).estimated).toBe(2);
  });
});
