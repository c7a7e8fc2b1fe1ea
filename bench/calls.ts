// `npm run bench:calls`: what the gateway's REST layers add to a dashboard's 21 upstream calls, by
// themselves: no GraphQL, no HTTP server. The calls the canonical dashboard makes (one organizations
// page, then four lists per organization at once) run against the fake upstream, through each stack
// in turn, with `concurrency` dashboards at a time; this process's CPU time is counted per dashboard:
//   undici     what bench/floor.ts does: Pool.request, body.text(), JSON.parse
//   transport  the gateway's transport (src/rest/transport.ts): its dispatch handler, deadline, size cap
//   breakers   and the circuit breakers over it (the transport every request shares)
//   client     and a request's own layers over those: the REST client with its answer-shape checks and
//              the per-request transport (call cap, concurrency, call records), as loaders call it
// The process runs with `npm run start:prod`'s Node flags and the compiled gateway (dist/, built first).
//   npm run bench:calls                  # 4 rounds × 1,500 dashboards per stack, 10 at a time
//   npm run bench:calls -- --rounds 8 --dashboards 3000
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Pool } from 'undici';
import type { ListParams } from '../src/rest/client.ts';
import type { UpstreamTransport } from '../src/rest/transport.ts';
import type { Page } from '../src/wire/rest-types.ts';
import { readFlags } from './lib/cli.ts';
import { environment } from './lib/environment.ts';
import { buildGateway, distModule, REPO_ROOT, runUnderProductionFlags, startScript } from './lib/processes.ts';
import { DASHBOARD_CALLS } from './lib/queries.ts';
import { fileStamp, fixed, median, min, table } from './lib/stats.ts';

runUnderProductionFlags(import.meta.url);

const { numbers } = readFlags({
  rounds: { env: 'BENCH_ROUNDS', default: 4 },
  dashboards: { env: 'BENCH_DASHBOARDS', default: 1500 },
  concurrency: { env: 'BENCH_CONCURRENCY', default: 10 },
});

buildGateway();
const { createUpstreamTransport } = (await import(distModule('rest/transport.js'))) as typeof import('../src/rest/transport.ts');
const { withCircuitBreakers } = (await import(distModule('rest/circuit-breaker.js'))) as typeof import('../src/rest/circuit-breaker.ts');
const { createRequestTransport } = (await import(
  distModule('rest/request-transport.js')
)) as typeof import('../src/rest/request-transport.ts');
const { createRestClient } = (await import(distModule('rest/client.js'))) as typeof import('../src/rest/client.ts');

const key = 'phx_bench_calls_key';
const requestId = 'bench-calls';
const upstream = await startScript('bench/fake-upstream.ts', ['--key', key]);
const origin = new URL(upstream.url).origin;

/** One list page: every stack answers with the parsed page. */
type ListPage = (path: string, limit: number) => Promise<Page<{ id: string }>>;
/** The dashboard's lists per organization, with the page sizes of its query. */
const ORGANIZATION_LISTS = [
  ['batch_exports', 10],
  ['domains', 5],
  ['members', 10],
  ['pipeline_destinations', 10],
] as const;

async function dashboard(list: ListPage): Promise<void> {
  const organizations = await list('/api/organizations/', 5);
  await Promise.all(
    organizations.results.flatMap((organization) =>
      ORGANIZATION_LISTS.map(([collection, limit]) => list(`/api/organizations/${organization.id}/${collection}/`, limit)),
    ),
  );
}

const pool = new Pool(origin, { connections: null });
const bareUndici: ListPage = async (path, limit) => {
  const response = await pool.request({
    origin,
    path: `${path}?limit=${limit}&offset=0`,
    method: 'GET',
    headers: { authorization: `Bearer ${key}`, accept: 'application/json', 'user-agent': 'bench-calls', 'x-request-id': requestId },
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`upstream ${response.statusCode} on ${path}`);
  return JSON.parse(text) as Page<{ id: string }>;
};
const through =
  (transport: UpstreamTransport): ListPage =>
  async (path, limit) =>
    (await transport.request<Page<{ id: string }>>({ method: 'GET', path, query: { limit, offset: 0 }, key, requestId })).body;

const transport = createUpstreamTransport({ baseUrl: upstream.url });
const breakers = withCircuitBreakers(transport);

/** A fresh request's client per dashboard, as each GraphQL request gets (src/context.ts). */
async function clientDashboard(): Promise<void> {
  const perRequest = createRequestTransport(breakers, { maxCalls: DASHBOARD_CALLS, concurrency: DASHBOARD_CALLS });
  const client = createRestClient(perRequest, { key, requestId });
  const firstPage = (limit: number): ListParams => ({ limit, offset: 0 });
  const organizations = await client.listOrganizations(firstPage(5));
  await Promise.all(
    organizations.results.flatMap((organization) => [
      client.listBatchExports(organization.id, firstPage(10)),
      client.listDomains(organization.id, firstPage(5)),
      client.listMembers(organization.id, firstPage(10)),
      client.listPipelineItems('pipeline_destinations', organization.id, firstPage(10)),
    ]),
  );
  if (perRequest.calls.length !== DASHBOARD_CALLS) throw new Error(`the client made ${perRequest.calls.length} calls`);
}

const stacks: Record<string, () => Promise<void>> = {
  undici: () => dashboard(bareUndici),
  transport: () => dashboard(through(transport)),
  breakers: () => dashboard(through(breakers)),
  client: clientDashboard,
};

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
for (const run of Object.values(stacks)) await cpuPerDashboard(run, Math.ceil(numbers.dashboards / 5));
const cpuMs: Record<string, number[]> = Object.fromEntries(Object.keys(stacks).map((name) => [name, []]));
for (let round = 0; round < numbers.rounds; round++) {
  // Alternating order, so that a slow stretch of a shared machine does not always fall on one stack.
  const order = round % 2 ? Object.keys(stacks).reverse() : Object.keys(stacks);
  for (const name of order) (cpuMs[name] as number[]).push(await cpuPerDashboard(stacks[name] as () => Promise<void>, numbers.dashboards));
  process.stdout.write('.');
}
console.log('\n');
const undiciMs = median(cpuMs.undici as number[]);
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

await Promise.all([pool.close(), transport.close()]);
await upstream.stop();
const resultsDir = join(REPO_ROOT, 'bench', 'results');
mkdirSync(resultsDir, { recursive: true });
const file = join(resultsDir, `calls-${fileStamp()}.json`);
writeFileSync(
  file,
  `${JSON.stringify({ kind: 'calls', date: new Date().toISOString(), settings: numbers, environment: environment(), cpuMsPerDashboard: cpuMs }, null, 2)}\n`,
);
console.log(`\nresults: ${relative(REPO_ROOT, file)}`);
process.exit(0);
