// `npm run bench:calls`: what the gateway's REST layers add to a dashboard's 21 upstream calls, by
// themselves: no GraphQL, no HTTP server. The calls the canonical dashboard makes (one organizations
// page, then four lists per organization at once) run against the fake upstream, through each stack
// in turn, with `concurrency` dashboards at a time; this process's CPU time is counted per dashboard:
//   undici     bench/floor.ts's own calls (createFloorCalls): Pool.request, body.text(), JSON.parse
//   transport  the gateway's transport (src/rest/transport.ts): its dispatch handler, deadline, size cap
//   breakers   and the circuit breakers over it (the transport every request shares)
//   client     and a request's own layers over those: the REST client with its answer-shape checks and
//              the per-request transport (call cap, concurrency, call records), as loaders call it
// The process runs with `npm run start:prod`'s Node flags and the compiled gateway (dist/, built first).
//   npm run bench:calls                  # 4 rounds × 1,500 dashboards per stack, 10 at a time
//   npm run bench:calls -- --rounds 8 --dashboards 3000
import type { ListParams, RestClient } from '../src/rest/client.ts';
import type { UpstreamTransport } from '../src/rest/transport.ts';
import type { Page } from '../src/wire/rest-types.ts';
import { createFloorCalls } from './floor.ts';
import { readFlags } from './lib/cli.ts';
import { buildGateway, distModule, runUnderProductionFlags, startScript } from './lib/processes.ts';
import { DASHBOARD_CALLS } from './lib/queries.ts';
import { writeResult } from './lib/results.ts';
import { fileStamp, fixed, median, min, table } from './lib/stats.ts';

runUnderProductionFlags(import.meta.url);

const { numbers } = readFlags({
  rounds: { env: 'BENCH_ROUNDS', default: 4 },
  dashboards: { env: 'BENCH_DASHBOARDS', default: 1500 },
  concurrency: { env: 'BENCH_CONCURRENCY', default: 10 },
});

buildGateway();
const { createUpstreamTransport, transportSettings } = (await import(
  distModule('rest/transport.js')
)) as typeof import('../src/rest/transport.ts');
const { resolveConfig } = (await import(distModule('config/index.js'))) as typeof import('../src/config/index.ts');
const { withCircuitBreakers } = (await import(distModule('rest/circuit-breaker.js'))) as typeof import('../src/rest/circuit-breaker.ts');
const { createRequestTransport } = (await import(
  distModule('rest/request-transport.js')
)) as typeof import('../src/rest/request-transport.ts');
const { createRestClient } = (await import(distModule('rest/client.js'))) as typeof import('../src/rest/client.ts');

const key = 'phx_bench_calls_key';
const requestId = 'bench-calls';
const upstream = await startScript('bench/fake-upstream.ts', ['--key', key]);

type ListedPage = Page<{ id: string }>;
/** The lists of each organization the dashboard reads, with its query's page sizes, and the REST client's method for each. */
const ORGANIZATION_LISTS: {
  collection: string;
  limit: number;
  viaClient(client: RestClient, organizationId: string, page: ListParams): Promise<unknown>;
}[] = [
  { collection: 'batch_exports', limit: 10, viaClient: (client, id, page) => client.listBatchExports(id, page) },
  { collection: 'domains', limit: 5, viaClient: (client, id, page) => client.listDomains(id, page) },
  { collection: 'members', limit: 10, viaClient: (client, id, page) => client.listMembers(id, page) },
  {
    collection: 'pipeline_destinations',
    limit: 10,
    viaClient: (client, id, page) => client.listPipelineItems('pipeline_destinations', id, page),
  },
];
const ORGANIZATIONS_LIMIT = 5;
const firstPage = (limit: number): ListParams => ({ limit, offset: 0 });

/** How one stack makes the dashboard's two kinds of call. */
interface DashboardCalls {
  organizations(limit: number): Promise<ListedPage>;
  list(organizationId: string, list: (typeof ORGANIZATION_LISTS)[number]): Promise<unknown>;
}

async function dashboard(calls: DashboardCalls): Promise<void> {
  const organizations = await calls.organizations(ORGANIZATIONS_LIMIT);
  await Promise.all(organizations.results.flatMap((organization) => ORGANIZATION_LISTS.map((list) => calls.list(organization.id, list))));
}

/** A stack that takes a REST path, its route template and a page size. */
const byPath = (listPage: (path: string, route: string, limit: number) => Promise<ListedPage>): DashboardCalls => ({
  organizations: (limit) => listPage('/api/organizations/', '/api/organizations/', limit),
  list: (organizationId, list) =>
    listPage(`/api/organizations/${organizationId}/${list.collection}/`, `/api/organizations/:id/${list.collection}/`, list.limit),
});

const floorCalls = createFloorCalls(upstream.url);
const bareUndici = byPath((path, _route, limit) => floorCalls.get<ListedPage>(key, requestId, path, limit));
const through = (transport: UpstreamTransport) =>
  byPath(
    async (path, route, limit) =>
      (await transport.request<ListedPage>({ method: 'GET', path, route, query: { limit, offset: 0 }, key, requestId })).body,
  );

const defaults = resolveConfig();
const transport = createUpstreamTransport({ baseUrl: upstream.url, ...transportSettings(defaults) });
const breakers = withCircuitBreakers(transport, defaults.circuitBreaker);
const [viaTransport, viaBreakers] = [through(transport), through(breakers)];

/** A fresh request's client per dashboard, as each GraphQL request gets (src/context.ts). */
async function clientDashboard(): Promise<void> {
  const perRequest = createRequestTransport(breakers, { maxCalls: DASHBOARD_CALLS, concurrency: DASHBOARD_CALLS });
  const client = createRestClient(perRequest, { key, requestId });
  await dashboard({
    organizations: (limit) => client.listOrganizations(firstPage(limit)),
    list: (organizationId, list) => list.viaClient(client, organizationId, firstPage(list.limit)),
  });
  if (perRequest.calls.length !== DASHBOARD_CALLS) throw new Error(`the client made ${perRequest.calls.length} calls`);
}

const stacks = {
  undici: () => dashboard(bareUndici),
  transport: () => dashboard(viaTransport),
  breakers: () => dashboard(viaBreakers),
  client: clientDashboard,
};
type StackName = keyof typeof stacks;
const stackNames = Object.keys(stacks) as StackName[];

/** CPU ms of this process per dashboard, `count` dashboards run `concurrency` at a time. */
async function cpuPerDashboard(run: () => Promise<void>, count: number): Promise<number> {
  let left = count;
  const before = process.cpuUsage();
  await Promise.all(
    Array.from({ length: numbers.concurrency }, async () => {
      while (left-- > 0) await run();
    }),
  );
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / count;
}

console.log(
  `CPU per dashboard's ${DASHBOARD_CALLS} upstream calls, ${numbers.rounds} rounds × ${numbers.dashboards} dashboards per stack, ${numbers.concurrency} at a time`,
);
// Warm-up: a fifth of a round per stack, so that every stack's code is optimised before it is counted.
for (const run of Object.values(stacks)) await cpuPerDashboard(run, Math.ceil(numbers.dashboards / 5));
const cpuMs = Object.fromEntries(stackNames.map((name) => [name, [] as number[]])) as Record<StackName, number[]>;
for (let round = 0; round < numbers.rounds; round++) {
  // Alternating order, so that a slow stretch of a shared machine does not always fall on one stack.
  for (const name of round % 2 ? [...stackNames].reverse() : stackNames)
    cpuMs[name].push(await cpuPerDashboard(stacks[name], numbers.dashboards));
  process.stdout.write('.');
}
console.log('\n');
const undiciMs = median(cpuMs.undici);
console.log(
  table(
    ['stack', 'CPU ms per dashboard (median)', 'min', '÷ undici'],
    Object.entries(cpuMs).map(([name, values]) => [
      name,
      fixed(median(values), 3),
      fixed(min(values), 3),
      fixed(median(values) / undiciMs, 2),
    ]),
  ),
);

await Promise.all([floorCalls.close(), transport.close()]);
await upstream.stop();
writeResult('calls', fileStamp(), numbers, { cpuMsPerDashboard: cpuMs });
process.exit(0);
