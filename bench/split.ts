// `npm run bench:split`: where a dashboard's CPU goes, layer by layer, against the floor's. Four
// servers run in this one process, each behind a real HTTP server, driven in turn by autocannon from
// a child process; this process's CPU time is counted while each one is driven:
//   gateway          the dashboard, upstream calls over HTTP to the fake upstream (as in production)
//   gateway, memory  the dashboard, every upstream answer served from memory after one event-loop
//                    turn (recorded once from the fake upstream, parsed again per call): no sockets
//   gateway, fixed   `{ __typename }`: no upstream call; the HTTP server, Yoga, every plugin, the log
//                    line and the metrics of one request
//   floor            bench/floor.ts: the same 21 calls and the same JSON, no GraphQL
// The differences split the gateway's CPU per dashboard into its upstream calls (gateway − memory),
// execution with the REST layers above the transport and the parsing of answers (memory − fixed),
// and the per-request cost (fixed). The process runs with `npm run start:prod`'s Node flags (it
// restarts itself with them) and the gateway's compiled code (dist/, built first), as production
// does: through tsx, esbuild's name-keeping helpers would add their own work to every closure.
// `--profile` also samples each server's timed rounds with V8's profiler and prints its self time
// per request by package, side by side (the profiler's overhead is in the CPU figures then).
// Sharing one heap has a price: at 50 connections the gateway's rounds climb (a gateway alone in its
// process does not), and the floor runs slower here than alone; docs/performance-gap.md says which
// figures hold.
//   npm run bench:split                     # 10 connections, 4 rounds × 5 s per server, 5 s warm-up each
//   npm run bench:split -- --connections 50 --rounds 6
//   npm run bench:split -- --profile        # and where each server's time goes (.cpuprofile files kept)
import { rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Gateway } from '../src/gateway.ts';
import type { UpstreamRequest, UpstreamTransport } from '../src/rest/transport.ts';
import { startFloor } from './floor.ts';
import { readFlags } from './lib/cli.ts';
import { driveInChild } from './lib/drive-child.ts';
import { type CpuProfile, packageOf, selfTimeBy } from './lib/frames.ts';
import { buildGateway, distModule, productionNodeArgs, REPO_ROOT, runUnderProductionFlags, startScript } from './lib/processes.ts';
import { DASHBOARD } from './lib/queries.ts';
import { RESULTS_DIR, writeResult } from './lib/results.ts';
import { fileStamp, fixed, median, table } from './lib/stats.ts';

runUnderProductionFlags(import.meta.url);

const { numbers, booleans } = readFlags(
  {
    connections: { env: 'BENCH_CONNECTIONS', default: 10 },
    rounds: { env: 'BENCH_ROUNDS', default: 4 },
    'round-sec': { env: 'BENCH_ROUND_SEC', default: 5 },
    'warmup-sec': { env: 'BENCH_WARMUP_SEC', default: 5 },
  },
  {},
  ['profile'],
);

// The compiled gateway, as `npm run start:prod` runs it (its types are the sources').
buildGateway();
const { createGateway } = (await import(distModule('gateway.js'))) as typeof import('../src/gateway.ts');
const { createGatewayServer } = (await import(distModule('http/server.js'))) as typeof import('../src/http/server.ts');
const { createLogger } = (await import(distModule('observability/logger.js'))) as typeof import('../src/observability/logger.ts');
const { createUpstreamTransport, transportSettings } = (await import(
  distModule('rest/transport.js')
)) as typeof import('../src/rest/transport.ts');
const { resolveConfig } = (await import(distModule('config/index.js'))) as typeof import('../src/config/index.ts');

const FIXED_QUERY = '{ __typename }';
const key = 'phx_bench_split_key';
const stamp = fileStamp();

/**
 * Answers each upstream call from the text the fake upstream gave the first identical call, parsed
 * again every time, after one event-loop turn (as a socket read would be): the gateway without its
 * sockets, undici and the transport's own work.
 */
function memoryTransport(real: UpstreamTransport): UpstreamTransport {
  const texts = new Map<string, string>();
  return {
    async request<T>(req: UpstreamRequest) {
      const callKey = `${req.method} ${req.path} ${JSON.stringify(req.query ?? {})}`;
      let text = texts.get(callKey);
      if (text === undefined) {
        text = (await real.request({ ...req, keepText: true })).text as string;
        texts.set(callKey, text);
      } else {
        await new Promise(setImmediate);
      }
      return { status: 200, body: JSON.parse(text) as T, durationMs: 0, attempts: 1 };
    },
    close: () => real.close(),
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
}

const drive = (url: string, seconds: number, query: string) => driveInChild({ url, key, seconds, connections: numbers.connections, query });

const upstream = await startScript('bench/fake-upstream.ts', ['--key', key]);
const defaults = resolveConfig();
// One log for both gateways, written at info as in production.
const logFile = join(tmpdir(), `bench-split-${stamp}.log`);
const logger = createLogger({ ...defaults, logFile });
const gatewayFor = (transport?: UpstreamTransport): Gateway => createGateway({ upstreamUrl: upstream.url, transport, logger });
const gateway = gatewayFor();
const memory = gatewayFor(memoryTransport(createUpstreamTransport({ baseUrl: upstream.url, ...transportSettings(defaults) })));
const servers = [createGatewayServer(gateway.listener, defaults.server), createGatewayServer(memory.listener, defaults.server)];
const [gatewayUrl, memoryUrl] = await Promise.all(servers.map(listen));
const floor = await startFloor({ upstreamUrl: upstream.url });

const sides = [
  { name: 'gateway', url: gatewayUrl as string, query: DASHBOARD },
  { name: 'gateway, memory', url: memoryUrl as string, query: DASHBOARD },
  { name: 'gateway, fixed', url: gatewayUrl as string, query: FIXED_QUERY },
  { name: 'floor', url: floor.url, query: DASHBOARD },
] as const;
type SideName = (typeof sides)[number]['name'];
const cpuMs: Record<SideName, number[]> = { gateway: [], 'gateway, memory': [], 'gateway, fixed': [], floor: [] };

console.log(
  `CPU per request, layer by layer: ${numbers.connections} connections, ${numbers.rounds} rounds × ${numbers['round-sec']} s per server (${numbers['warmup-sec']} s warm-up), flags ${productionNodeArgs().join(' ')}`,
);
for (const side of sides) await drive(side.url, numbers['warmup-sec'], side.query);
// With --profile: V8's sampling profiler over each timed round of this process (the load generator
// is a child, so not in it).
const profiler = booleans.profile ? new Session() : undefined;
profiler?.connect();
await profiler?.post('Profiler.enable');
interface SideProfile {
  /** Self time by package (native functions apart), µs, over the side's timed rounds. */
  selfUs: Map<string, number>;
  requests: number;
  lastRound?: CpuProfile;
}
const profiles = new Map<SideName, SideProfile>(sides.map((side) => [side.name, { selfUs: new Map(), requests: 0 }]));
function addRound(side: SideProfile, profile: CpuProfile, requests: number): void {
  for (const [name, us] of selfTimeBy(profile, (frame) => packageOf(frame, true))) side.selfUs.set(name, (side.selfUs.get(name) ?? 0) + us);
  side.requests += requests;
  side.lastRound = profile;
}
for (let round = 0; round < numbers.rounds; round++) {
  // Alternating order, so that a slow stretch of a shared machine does not always fall on one side.
  for (const side of round % 2 ? [...sides].reverse() : sides) {
    await profiler?.post('Profiler.start');
    const before = process.cpuUsage();
    const load = await drive(side.url, numbers['round-sec'], side.query);
    const used = process.cpuUsage(before);
    cpuMs[side.name].push((used.user + used.system) / 1000 / load.requests);
    if (profiler) {
      const { profile } = (await profiler.post('Profiler.stop')) as { profile: CpuProfile };
      addRound(profiles.get(side.name) as SideProfile, profile, load.requests);
    }
    process.stdout.write('.');
  }
}
console.log('\n');

const ms = Object.fromEntries(Object.entries(cpuMs).map(([name, values]) => [name, median(values)])) as Record<SideName, number>;
const split = {
  total: ms.gateway,
  upstreamCalls: ms.gateway - ms['gateway, memory'],
  executionAndParsing: ms['gateway, memory'] - ms['gateway, fixed'],
  perRequest: ms['gateway, fixed'],
  floor: ms.floor,
};
const share = (value: number) => `${((value / split.total) * 100).toFixed(0)}%`;
console.log(
  table(
    ['CPU ms per dashboard (median of rounds)', 'ms', 'share'],
    [
      ['gateway', fixed(split.total, 3), '100%'],
      ['  upstream calls: sockets, undici, the transport (gateway − memory)', fixed(split.upstreamCalls, 3), share(split.upstreamCalls)],
      ['  execution, REST layers, parsing answers (memory − fixed)', fixed(split.executionAndParsing, 3), share(split.executionAndParsing)],
      ['  per request: HTTP, Yoga, plugins, log, metrics (fixed)', fixed(split.perRequest, 3), share(split.perRequest)],
      ['floor', fixed(split.floor, 3), share(split.floor)],
    ],
  ),
);
console.log(
  `\nrounds (ms): ${Object.entries(cpuMs)
    .map(([name, values]) => `${name} ${values.map((v) => v.toFixed(2)).join(' ')}`)
    .join('; ')}`,
);

// Self time per request by package, side by side: the rows where any side spends at least 5 µs.
const selfUsPerRequest = Object.fromEntries(
  [...profiles].map(([name, side]) => [
    name,
    Object.fromEntries([...side.selfUs].map(([pkg, us]) => [pkg, us / Math.max(side.requests, 1)])),
  ]),
) as Record<SideName, Record<string, number>>;
if (profiler) {
  const packages = [...new Set(Object.values(selfUsPerRequest).flatMap((bySide) => Object.keys(bySide)))]
    .map((pkg) => ({ pkg, us: sides.map((side) => selfUsPerRequest[side.name][pkg] ?? 0) }))
    .filter((row) => row.pkg !== '(idle)' && Math.max(...row.us) >= 5)
    .sort((a, b) => Math.max(...b.us) - Math.max(...a.us));
  console.log(`\nself time per request by package, µs (V8's sampling profiler; its own overhead is in the CPU figures above):\n`);
  console.log(
    table(
      ['package', ...sides.map((side) => side.name)],
      packages.map((row) => [row.pkg, ...row.us.map((us) => fixed(us, 1))]),
    ),
  );
}

await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
await Promise.all([gateway.close(), memory.close(), floor.close()]);
await upstream.stop();
rmSync(logFile, { force: true });

writeResult(
  'split',
  stamp,
  { ...numbers, profile: booleans.profile },
  {
    cpuMsPerRequest: cpuMs,
    medians: ms,
    split,
    selfUsPerRequest: profiler ? selfUsPerRequest : undefined,
  },
);
for (const [name, side] of profiles) {
  if (!side.lastRound) continue;
  const profileFile = join(RESULTS_DIR, `split-${stamp}-${name.replace(/\W+/g, '-')}.cpuprofile`);
  writeFileSync(profileFile, JSON.stringify(side.lastRound));
  console.log(`${name}, its last round: ${relative(REPO_ROOT, profileFile)} (git-ignored)`);
}
process.exit(0);
