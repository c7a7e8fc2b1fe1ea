// Where the gateway spends its CPU under the dashboard load: runs it with `--cpu-prof` over the
// upstream, drives it with autocannon, stops it (the profile is written at exit) and prints the
// functions and packages with the most self time. `--against-floor` profiles the floor the same way
// after it, each in its own process under start:prod's flags, and prints both sides' self time per
// dashboard and what the gateway spends over the floor, by package and by function.
//   npm run bench:profile                      # 50 connections, 15 s, delay 0
//   npm run bench:profile -- --quick           # 3 s
//   npm run bench:profile -- --duration 30 --connections 10 --top 25
//   npm run bench:profile -- --connections 10 --against-floor
// Open the .cpuprofile it keeps in bench/results/ (git-ignored) in Chrome DevTools or speedscope for the full picture.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { readFlags } from './lib/cli.ts';
import { drive } from './lib/drive.ts';
import { type CpuProfile, frameName, packageOf, selfTimeBy } from './lib/frames.ts';
import { REPO_ROOT, startFloorProcess, startGateway, startScript } from './lib/processes.ts';
import { DASHBOARD, graphqlBody } from './lib/queries.ts';
import { writeResult } from './lib/results.ts';
import { fileStamp, fixed, table } from './lib/stats.ts';

const { quick, numbers, booleans } = readFlags(
  {
    duration: { env: 'BENCH_DURATION', default: 15, quick: 3 },
    connections: { env: 'BENCH_CONNECTIONS', default: 50 },
    'delay-ms': { env: 'BENCH_DELAY_MS', default: 0 },
    'warmup-sec': { env: 'BENCH_WARMUP_SEC', default: 3, quick: 1 },
    top: { env: 'BENCH_TOP', default: 15 },
  },
  {},
  ['against-floor'],
);

type Side = 'gateway' | 'floor';
interface Profiled {
  load: Awaited<ReturnType<typeof drive>>;
  profile: CpuProfile;
  /** Dashboards answered while the profiler ran (warm-up included: the profile covers the process's whole life). */
  dashboards: number;
  file: string;
}

const key = `bench-${randomUUID()}`;
const stamp = fileStamp();
const workDir = join(tmpdir(), `bench-profile-${stamp}`);
const logFile = join(workDir, 'gateway.log');
mkdirSync(workDir, { recursive: true });

const upstream = await startScript('bench/upstream.ts', ['--key', key, '--delay-ms', String(numbers['delay-ms'])]);
const body = graphqlBody(DASHBOARD);

async function profileOf(side: Side): Promise<Profiled> {
  const profileDir = join(workDir, side);
  const profilerArgs = ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  const server =
    side === 'gateway'
      ? await startGateway({ upstreamUrl: upstream.url, logFile, nodeArgs: profilerArgs })
      : await startFloorProcess(upstream.url, profilerArgs);
  console.log(
    `profiling the ${side}: ${numbers.connections} connections, ${numbers.duration} s (after ${numbers['warmup-sec']} s warm-up), upstream delay ${numbers['delay-ms']} ms`,
  );
  const warmup = await drive({ url: server.url, connections: numbers.connections, durationSec: numbers['warmup-sec'], key, body });
  const load = await drive({ url: server.url, connections: numbers.connections, durationSec: numbers.duration, key, body });
  const exit = await server.stop(30_000);
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) {
    console.error(`no profile was written (${side} exit ${JSON.stringify(exit)}); see ${logFile}`);
    process.exit(1);
  }
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;
  return { load, profile, dashboards: warmup.requests + load.requests, file: join(profileDir, file) };
}

const gateway = await profileOf('gateway');
const floor = booleans['against-floor'] ? await profileOf('floor') : undefined;
await upstream.stop();

// Self time per function and per package (the warm-up and start-up are in the profile too).
const byFunction = selfTimeBy(gateway.profile, frameName);
const byPackage = selfTimeBy(gateway.profile, (frame) => packageOf(frame));
let totalUs = 0;
for (const us of byFunction.values()) totalUs += us;
const top = (map: Map<string, number>, n: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, ms: us / 1000, share: us / totalUs }));

const { load } = gateway;
const functions = top(byFunction, numbers.top);
const packages = top(byPackage, numbers.top);
console.log(
  `\n${load.requests} requests, ${fixed(load.requestsPerSec)} q/s, p50 ${fixed(load.latencyMs.p50)} ms, p99 ${fixed(load.latencyMs.p99)} ms`,
);
console.log(`\ntop ${numbers.top} functions by self time (of ${fixed(totalUs / 1e6, 1)} s sampled):\n`);
console.log(
  table(
    ['self ms', 'share', 'function'],
    functions.map((f) => [fixed(f.ms, 0), `${(f.share * 100).toFixed(1)}%`, f.name]),
  ),
);
console.log(`\nself time by package:\n`);
console.log(
  table(
    ['self ms', 'share', 'package'],
    packages.map((p) => [fixed(p.ms, 0), `${(p.share * 100).toFixed(1)}%`, p.name]),
  ),
);

const againstFloor = floor ? compare(gateway, floor) : undefined;

const result = writeResult('profile', `${stamp}${quick ? '-quick' : ''}`, numbers, {
  load: { ...load, answeredIds: undefined },
  sampledMs: totalUs / 1000,
  functions,
  packages,
  againstFloor,
});
const profileFile = result.replace(/\.json$/, '.cpuprofile');
renameSync(gateway.file, profileFile);
console.log(`profile: ${relative(REPO_ROOT, profileFile)} (git-ignored)`);
if (floor) {
  const floorFile = result.replace(/\.json$/, '-floor.cpuprofile');
  renameSync(floor.file, floorFile);
  console.log(`floor's profile: ${relative(REPO_ROOT, floorFile)} (git-ignored)`);
}
rmSync(workDir, { recursive: true, force: true });
process.exit(0);

/** Each side's self time per dashboard, by package and by function, and the difference, the largest first. */
function compare(ours: Profiled, theirs: Profiled) {
  const perDashboard = (side: Profiled, keyOf: Parameters<typeof selfTimeBy>[1]) => {
    const perKey = new Map<string, number>();
    for (const [name, us] of selfTimeBy(side.profile, keyOf)) perKey.set(name, us / side.dashboards);
    return perKey;
  };
  // The largest differences both ways: what the gateway spends over the floor, then what the floor spends over the gateway.
  const rows = (keyOf: Parameters<typeof selfTimeBy>[1], n: number) => {
    const gw = perDashboard(ours, keyOf);
    const fl = perDashboard(theirs, keyOf);
    const sorted = [...new Set([...gw.keys(), ...fl.keys()])]
      .map((name) => ({ name, gatewayUs: gw.get(name) ?? 0, floorUs: fl.get(name) ?? 0 }))
      .sort((a, b) => b.gatewayUs - b.floorUs - (a.gatewayUs - a.floorUs));
    return [...sorted.slice(0, n), ...sorted.slice(Math.max(n, sorted.length - Math.ceil(n / 3)))];
  };
  const busy = (side: Profiled) => {
    let us = 0;
    for (const [name, self] of selfTimeBy(side.profile, (frame) => frame.functionName)) if (name !== '(idle)') us += self;
    return us / side.dashboards;
  };
  const summary = {
    gateway: { dashboards: ours.dashboards, perSec: ours.load.completePerSec, busyUsPerDashboard: busy(ours) },
    floor: { dashboards: theirs.dashboards, perSec: theirs.load.completePerSec, busyUsPerDashboard: busy(theirs) },
  };
  const byPackage = rows((frame) => packageOf(frame, true), numbers.top * 2);
  const byFunction = rows(frameName, numbers.top * 2);
  const print = (title: string, list: typeof byPackage) => {
    console.log(`\n${title}:\n`);
    console.log(
      table(
        ['gateway µs', 'floor µs', 'gateway − floor', 'name'],
        list.map((row) => [fixed(row.gatewayUs, 1), fixed(row.floorUs, 1), fixed(row.gatewayUs - row.floorUs, 1), row.name]),
      ),
    );
  };
  console.log(
    `\nself time per dashboard, each side in its own process, idle left out (start-up and warm-up are in it): gateway ${fixed(summary.gateway.busyUsPerDashboard, 0)} µs (${fixed(summary.gateway.perSec)} dashboards/s under the profiler), floor ${fixed(summary.floor.busyUsPerDashboard, 0)} µs (${fixed(summary.floor.perSec)}/s)`,
  );
  print('self time per dashboard by package: where the gateway spends the most over the floor, then the floor over the gateway', byPackage);
  print('self time per dashboard by function, the same way', byFunction);
  return { summary, byPackage, byFunction };
}
