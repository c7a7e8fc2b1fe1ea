// `npm run bench:cpu`: the gateway's own CPU time per dashboard, in one process through
// `yoga.fetch` (no HTTP server, no autocannon), against the fake upstream in a child process.
// Quick and steady enough to compare one change with the next; `npm run bench` is the real measure.
// CACHE and UPSTREAM_BUDGET (and their settings) apply as they do to `npm start`, e.g.
// `CACHE=memory npm run bench:cpu` measures dashboards served from the cache.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, resolveConfig } from '../src/config/index.ts';
import { createGateway } from '../src/gateway.ts';
import { createLogger } from '../src/observability/logger.ts';
import { startScript } from './lib/processes.ts';
import { DASHBOARD } from './lib/queries.ts';

const KEY = 'phx_bench_cpu_key';
const queries = Number(process.env.BENCH_QUERIES ?? 2000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 20);

const upstream = await startScript('bench/fake-upstream.ts', ['--key', KEY]);
// Logs at info to a temporary file, as production logs, instead of flooding this script's output.
// The cache, the budget and spans are on when their variables say so, as in production
// (docs/tracing.md#cost).
const { cache, upstreamBudget, tracing } = loadConfig();
const gateway = createGateway({
  upstreamUrl: upstream.url,
  cache,
  upstreamBudget,
  logger: createLogger({ ...resolveConfig(), logFile: join(tmpdir(), `bench-cpu-${process.pid}.log`) }),
  tracing,
});
const body = JSON.stringify({ query: DASHBOARD });

async function dashboard(): Promise<void> {
  const response = await gateway.yoga.fetch('http://gateway.bench/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body,
  });
  const json = (await response.json()) as { errors?: unknown };
  if (json.errors) throw new Error(JSON.stringify(json.errors));
}

async function runBatch(count: number): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) await dashboard();
    }),
  );
}

await runBatch(300); // warm-up: JIT, caches, connections
const cpu = process.cpuUsage();
const started = performance.now();
await runBatch(queries);
const used = process.cpuUsage(cpu);
const wallMs = performance.now() - started;
console.log(
  JSON.stringify({
    queries,
    concurrency,
    cache: cache?.store ?? 'off',
    cpuMsPerQuery: Math.round(((used.user + used.system) / 1000 / queries) * 100) / 100,
    queriesPerSecond: Math.round(queries / (wallMs / 1000)),
    rssMb: Math.round(process.memoryUsage().rss / 1e6),
  }),
);
await gateway.close();
await upstream.stop();
process.exit(0);
