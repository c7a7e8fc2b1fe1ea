// Where the gateway spends its CPU under the dashboard load: runs it with `--cpu-prof` over the fake
// upstream, drives it with autocannon, stops it (the profile is written at exit) and prints the
// functions and packages with the most self time.
//   npm run bench:profile                      # 50 connections, 15 s, delay 0
//   npm run bench:profile -- --quick           # 3 s
//   npm run bench:profile -- --duration 30 --connections 10 --top 25
// Open the .cpuprofile it keeps in bench/results/ (git-ignored) in Chrome DevTools or speedscope for the full picture.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { readFlags } from './lib/cli.ts';
import { drive } from './lib/drive.ts';
import { type CpuProfile, frameName, packageOf, selfTimeBy } from './lib/frames.ts';
import { REPO_ROOT, startGateway, startScript } from './lib/processes.ts';
import { DASHBOARD, graphqlBody } from './lib/queries.ts';
import { writeResult } from './lib/results.ts';
import { fileStamp, fixed, table } from './lib/stats.ts';

const { quick, numbers } = readFlags({
  duration: { env: 'BENCH_DURATION', default: 15, quick: 3 },
  connections: { env: 'BENCH_CONNECTIONS', default: 50 },
  'delay-ms': { env: 'BENCH_DELAY_MS', default: 0 },
  'warmup-sec': { env: 'BENCH_WARMUP_SEC', default: 3, quick: 1 },
  top: { env: 'BENCH_TOP', default: 15 },
});

const key = `bench-${randomUUID()}`;
const stamp = fileStamp();
const profileDir = join(tmpdir(), `bench-profile-${stamp}`);
const logFile = join(tmpdir(), `bench-profile-gateway-${stamp}.log`);
mkdirSync(profileDir, { recursive: true });

const upstream = await startScript('bench/fake-upstream.ts', ['--key', key, '--delay-ms', String(numbers['delay-ms'])]);
const gateway = await startGateway({ upstreamUrl: upstream.url, logFile, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] });
const body = graphqlBody(DASHBOARD);
console.log(
  `profiling the gateway: ${numbers.connections} connections, ${numbers.duration} s (after ${numbers['warmup-sec']} s warm-up), upstream delay ${numbers['delay-ms']} ms`,
);
await drive({ url: gateway.url, connections: numbers.connections, durationSec: numbers['warmup-sec'], key, body });
const load = await drive({ url: gateway.url, connections: numbers.connections, durationSec: numbers.duration, key, body });
const exit = await gateway.stop(30_000);
await upstream.stop();

const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
if (!file) {
  console.error(`no profile was written (gateway exit ${JSON.stringify(exit)}); see ${logFile}`);
  process.exit(1);
}
const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile;

// Self time per function and per package (the warm-up and start-up are in the profile too).
const byFunction = selfTimeBy(profile, frameName);
const byPackage = selfTimeBy(profile, (frame) => packageOf(frame));
let totalUs = 0;
for (const us of byFunction.values()) totalUs += us;
const top = (map: Map<string, number>, n: number) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, ms: us / 1000, share: us / totalUs }));

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

const result = writeResult('profile', `${stamp}${quick ? '-quick' : ''}`, numbers, {
  load: { ...load, answeredIds: undefined },
  sampledMs: totalUs / 1000,
  functions,
  packages,
});
const profileFile = result.replace(/\.json$/, '.cpuprofile');
renameSync(join(profileDir, file), profileFile);
rmSync(profileDir, { recursive: true, force: true });
rmSync(logFile, { force: true });
console.log(`profile: ${relative(REPO_ROOT, profileFile)} (git-ignored)`);
process.exit(0);
