// `npm run bench:gc`: what garbage collection costs the gateway and the floor per dashboard, from
// V8's own account (`--trace-gc-nvp`). Each side runs alone with production's flags against the
// fake upstream, is warmed up, then driven; only the GCs of the measured seconds count.
// The number that matters is what each scavenge copies (survived + promoted): a scavenge's pause
// and its helper threads' work grow with it, not with what was allocated.
//   npm run bench:gc                             # 50 connections, 12 s, delay 0
//   npm run bench:gc -- --connections 10 --duration 8
//   npm run bench:gc -- --only gateway             # one side, e.g. to compare builds of the gateway
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFlags } from './lib/cli.ts';
import { drive } from './lib/drive.ts';
import { productionNodeArgs, startFloorProcess, startGateway, startScript } from './lib/processes.ts';
import { DASHBOARD, graphqlBody } from './lib/queries.ts';
import { writeResult } from './lib/results.ts';
import { fileStamp, fixed, table } from './lib/stats.ts';

const { numbers, strings } = readFlags(
  {
    duration: { env: 'BENCH_DURATION', default: 12, quick: 4 },
    connections: { env: 'BENCH_CONNECTIONS', default: 50 },
    'delay-ms': { env: 'BENCH_DELAY_MS', default: 0 },
    'warmup-sec': { env: 'BENCH_WARMUP_SEC', default: 3, quick: 1 },
  },
  {},
  [],
  ['only'],
);
const SIDES = ['floor', 'gateway'] as const;
type Side = (typeof SIDES)[number];
const sides = SIDES.filter((side) => strings.only === undefined || strings.only === side);
if (sides.length === 0) throw new Error(`--only takes ${SIDES.join(' or ')} (got "${strings.only}").`);

/** One `--trace-gc-nvp` line's numbers, by name (`gc=s` is a scavenge, `gc=mc` a mark-compact). */
type GcEvent = Record<string, string>;

function parseGcLine(line: string): GcEvent | undefined {
  if (!line.includes(' gc=')) return undefined;
  return Object.fromEntries([...line.matchAll(/([\w.]+)=(\S+)/g)].map((match) => [match[1] as string, match[2] as string]));
}

function summarise(events: GcEvent[], dashboards: number) {
  const sum = (list: GcEvent[], field: string) => list.reduce((total, event) => total + Number(event[field] ?? 0), 0);
  const scavenges = events.filter((event) => event.gc === 's');
  const fullGcs = events.filter((event) => event.gc !== 's');
  const copied = sum(scavenges, 'new_space_survived') + sum(scavenges, 'promoted');
  return {
    dashboards,
    scavenges: scavenges.length,
    scavengePauseMsAvg: sum(scavenges, 'pause') / (scavenges.length || 1),
    copiedMbPerScavenge: copied / 1e6 / (scavenges.length || 1),
    copiedKbPerDashboard: copied / 1024 / dashboards,
    allocatedMbPerScavenge: sum(scavenges, 'allocated') / 1e6 / (scavenges.length || 1),
    fullGcs: fullGcs.length,
    /** Main-thread pauses, scavenges and full GCs. */
    mainThreadMsPerDashboard: (sum(scavenges, 'pause') + sum(fullGcs, 'pause')) / dashboards,
    /** The scavenges' parallel work on V8's helper threads, which compete with the rest of the machine. */
    helperThreadsMsPerDashboard: sum(scavenges, 'background.scavenge.parallel') / dashboards,
  };
}

const key = `bench-${randomUUID()}`;
const stamp = fileStamp();
const body = graphqlBody(DASHBOARD);
const gcFlags = ['--trace-gc-nvp'];

async function measure(side: Side) {
  const upstream = await startScript('bench/fake-upstream.ts', ['--key', key, '--delay-ms', String(numbers['delay-ms'])]);
  // The floor prints V8's lines on its stdout; the gateway's stdout goes to its log file.
  const floorLines: string[] = [];
  const logFile = join(tmpdir(), `bench-gc-gateway-${stamp}.log`);
  const child =
    side === 'floor'
      ? await startFloorProcess(upstream.url, gcFlags, { onOutput: (line) => floorLines.push(line) })
      : await startGateway({ upstreamUrl: upstream.url, logFile, nodeArgs: gcFlags });
  const linesSoFar = () => (side === 'floor' ? floorLines.join('\n') : readFileSync(logFile, 'utf8'));
  await drive({ url: child.url, connections: numbers.connections, durationSec: numbers['warmup-sec'], key, body });
  // An offset into the same text it is sliced from (a byte size would drift on a non-ASCII log line).
  const from = linesSoFar().length;
  const load = await drive({
    url: child.url,
    connections: numbers.connections,
    durationSec: numbers.duration,
    key,
    body,
    checkBodies: true,
  });
  const measured = linesSoFar().slice(from);
  await child.stop();
  await upstream.stop();
  if (load.non2xx || load.errors || load.withErrors) throw new Error(`${side}: not every dashboard was answered in full`);
  const events = measured.split('\n').flatMap((line): GcEvent[] => {
    const event = parseGcLine(line);
    return event ? [event] : [];
  });
  return { dashboardsPerSec: load.completePerSec, latencyMs: load.latencyMs, ...summarise(events, load.requests) };
}

console.log(
  `GC per dashboard: ${numbers.connections} connections, ${numbers.duration} s after ${numbers['warmup-sec']} s of warm-up, upstream delay ${numbers['delay-ms']} ms, flags ${productionNodeArgs().join(' ')}`,
);
type Measured = Awaited<ReturnType<typeof measure>>;
const results: Partial<Record<Side, Measured>> = {};
for (const side of sides) results[side] = await measure(side);
const rows: [string, (r: Measured) => string][] = [
  ['dashboards/s', (r) => fixed(r.dashboardsPerSec, 0)],
  // Beside the collector's state: whether a run's tail moves with it.
  ['latency p50 / p99, ms', (r) => `${fixed(r.latencyMs.p50, 1)} / ${fixed(r.latencyMs.p99, 1)}`],
  ['scavenges', (r) => String(r.scavenges)],
  ['MB allocated per scavenge', (r) => fixed(r.allocatedMbPerScavenge)],
  ['MB copied per scavenge (survived + promoted)', (r) => fixed(r.copiedMbPerScavenge)],
  ['KB copied per dashboard', (r) => fixed(r.copiedKbPerDashboard, 0)],
  ['scavenge pause, ms (mean)', (r) => fixed(r.scavengePauseMsAvg)],
  ['full GCs', (r) => String(r.fullGcs)],
  ['GC on the main thread, ms per dashboard', (r) => fixed(r.mainThreadMsPerDashboard, 2)],
  ['scavenge helper threads, ms per dashboard', (r) => fixed(r.helperThreadsMsPerDashboard, 2)],
];
console.log(
  `\n${table(
    ['', ...sides],
    rows.map(([label, cell]) => [label, ...sides.map((side) => cell(results[side] as Measured))]),
  )}`,
);

writeResult('gc', stamp, numbers, { results });
process.exit(0);
