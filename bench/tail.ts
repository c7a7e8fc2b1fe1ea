// `npm run bench:tail`: what a round's slowest answers are made of, the gateway's and the floor's.
// Both run under start:prod's flags with bench/lib/major-gcs.mjs preloaded, over one fake upstream,
// driven in alternating rounds as `npm run bench` drives them, every answer's arrival and latency
// kept. The answers at or over the round's p99 are sorted into:
// - first: a connection's first request, which waits in the accept queue
//   (docs/performance-gap.md#the-p99-at-50-clients);
// - burst: one of a crowd of slow answers (a fifth of the clients or more) arriving within 100 ms
//   of each other: the whole server stalled, and every request in flight waited with it;
// - other.
// Beside them: the round's full collections, how many bursts came with one, and the
// p99 of the answers left once first requests and bursts are set aside.
//   npm run bench:tail                                  # 50 clients, 0 ms, 3 rounds × 10 s per side
//   npm run bench:tail -- --connections 10 --delay-ms 5 --rounds 4
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFlags } from './lib/cli.ts';
import { drive } from './lib/drive.ts';
import { REPO_ROOT, startFloorProcess, startGateway, startScript } from './lib/processes.ts';
import { DASHBOARD, graphqlBody } from './lib/queries.ts';
import { writeResult } from './lib/results.ts';
import { fileStamp, fixed, median, percentile, table } from './lib/stats.ts';

const { numbers } = readFlags({
  connections: { env: 'BENCH_CONNECTIONS', default: 50 },
  'delay-ms': { env: 'BENCH_DELAY_MS', default: 0 },
  rounds: { env: 'BENCH_ROUNDS', default: 3, quick: 1 },
  'round-sec': { env: 'BENCH_ROUND_SEC', default: 10, quick: 4 },
  'warmup-sec': { env: 'BENCH_WARMUP_SEC', default: 3, quick: 1 },
});

/** Slow answers this close together (ms), and at least this many of them, are one burst. */
const BURST_WINDOW_MS = 100;
const burstSize = Math.max(5, Math.ceil(numbers.connections / 5));
/** How long before its closing pause a full collection may already slow the server down. */
const GC_MARKING_MS = 250;

type Side = 'gateway' | 'floor';
interface Answer {
  at: number;
  latencyMs: number;
  first: boolean;
}
interface FullGc {
  pid: number;
  at: number;
  pauseMs: number;
}

const key = `bench-${randomUUID()}`;
const stamp = fileStamp();
const workDir = join(tmpdir(), `bench-tail-${stamp}`);
mkdirSync(workDir, { recursive: true });
const gcFile = join(workDir, 'full-gcs.txt');

const upstream = await startScript('bench/fake-upstream.ts', ['--key', key, '--delay-ms', String(numbers['delay-ms'])]);
// Both servers append to one file, each line with its pid; the fake upstream started before this was set.
process.env.BENCH_MAJOR_GCS_FILE = gcFile;
const preload = ['--import', join(REPO_ROOT, 'bench/lib/major-gcs.mjs')];
const servers = {
  gateway: await startGateway({ upstreamUrl: upstream.url, logFile: join(workDir, 'gateway.log'), nodeArgs: preload }),
  floor: await startFloorProcess(upstream.url, preload),
};
const body = graphqlBody(DASHBOARD);

console.log(
  `slow answers by kind: ${numbers.connections} clients, upstream delay ${numbers['delay-ms']} ms, ${numbers.rounds} rounds × ${numbers['round-sec']} s per side`,
);
for (const side of ['gateway', 'floor'] as const)
  await drive({ url: servers[side].url, connections: numbers.connections, durationSec: numbers['warmup-sec'], key, body });

const rounds: { side: Side; round: number; startedAt: number; endedAt: number; answers: Answer[]; durationSec: number }[] = [];
for (let round = 0; round < numbers.rounds; round += 1) {
  const order: Side[] = round % 2 === 0 ? ['gateway', 'floor'] : ['floor', 'gateway'];
  for (const side of order) {
    const answers: Answer[] = [];
    const startedAt = Date.now();
    const load = await drive({
      url: servers[side].url,
      connections: numbers.connections,
      durationSec: numbers['round-sec'],
      key,
      body,
      onAnswer: (answer) => answers.push(answer),
    });
    rounds.push({ side, round, startedAt, endedAt: Date.now(), answers, durationSec: load.durationSec });
  }
}
await Promise.all([servers.gateway.stop(), servers.floor.stop(), upstream.stop()]);

const fullGcs: FullGc[] = existsSync(gcFile)
  ? readFileSync(gcFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => line.split(' ').map(Number))
      .map(([pid, at, pauseMs]) => ({ pid: pid as number, at: at as number, pauseMs: pauseMs as number }))
  : [];

/** Runs of slow answers, none more than BURST_WINDOW_MS after the one before, of at least `burstSize`. */
function burstsOf(slow: Answer[]): Answer[][] {
  const runs: Answer[][] = [];
  for (const answer of [...slow].sort((a, b) => a.at - b.at)) {
    const run = runs.at(-1);
    if (run && answer.at - (run.at(-1) as Answer).at <= BURST_WINDOW_MS) run.push(answer);
    else runs.push([answer]);
  }
  return runs.filter((run) => run.length >= burstSize);
}

const summaries = rounds.map(({ side, round, startedAt, endedAt, answers, durationSec }) => {
  const latencies = answers.map((a) => a.latencyMs).sort((a, b) => a - b);
  const p99 = percentile(latencies, 99);
  const slow = answers.filter((a) => a.latencyMs >= p99);
  const bursts = burstsOf(slow.filter((a) => !a.first));
  const inBurst = new Set(bursts.flat());
  const gcs = fullGcs.filter((gc) => gc.pid === servers[side].pid && gc.at >= startedAt && gc.at <= endedAt);
  // A full collection marks for ~100 ms (on the other core, and in steps on this one) before the
  // pause that ends it: a burst counts as the collection's when that pause came while one of its
  // requests was in flight, or up to GC_MARKING_MS after the last of them.
  const withGc = bursts.filter((run) => {
    const from = Math.min(...run.map((a) => a.at - a.latencyMs));
    const to = Math.max(...run.map((a) => a.at)) + GC_MARKING_MS;
    return gcs.some((gc) => gc.at + gc.pauseMs >= from && gc.at <= to);
  });
  const rest = answers
    .filter((a) => !a.first && !inBurst.has(a))
    .map((a) => a.latencyMs)
    .sort((a, b) => a - b);
  return {
    side,
    round,
    perSec: answers.length / durationSec,
    p50: percentile(latencies, 50),
    p99,
    slow: {
      first: slow.filter((a) => a.first).length,
      burst: inBurst.size,
      other: slow.length - inBurst.size - slow.filter((a) => a.first).length,
    },
    bursts: bursts.length,
    burstsWithFullGc: withGc.length,
    fullGcs: gcs.length,
    fullGcPauseMs: gcs.reduce((sum, gc) => sum + gc.pauseMs, 0),
    p99WithoutFirstAndBursts: percentile(rest, 99),
  };
});

console.log(
  `\n${table(
    [
      'side',
      'round',
      'dashboards/s',
      'p50 ms',
      'p99 ms',
      'slow: first / burst / other',
      'bursts (with a full GC)',
      'full GCs (pause ms)',
      'p99 without first and bursts',
    ],
    summaries.map((s) => [
      s.side,
      String(s.round + 1),
      fixed(s.perSec, 0),
      fixed(s.p50),
      fixed(s.p99),
      `${s.slow.first} / ${s.slow.burst} / ${s.slow.other}`,
      `${s.bursts} (${s.burstsWithFullGc})`,
      `${s.fullGcs} (${fixed(s.fullGcPauseMs)})`,
      fixed(s.p99WithoutFirstAndBursts),
    ]),
  )}`,
);

// Ratios paired per round, as `npm run bench` pairs them.
const ofSide = (side: Side) => summaries.filter((s) => s.side === side).sort((a, b) => a.round - b.round);
const paired = (pick: (s: (typeof summaries)[number]) => number) =>
  ofSide('gateway').map((g, i) => pick(g) / pick(ofSide('floor')[i] as (typeof summaries)[number]));
const ratios = { p99: median(paired((s) => s.p99)), p99WithoutFirstAndBursts: median(paired((s) => s.p99WithoutFirstAndBursts)) };
console.log(
  `\ngateway ÷ floor, median over rounds: p99 ${fixed(ratios.p99, 2)}, p99 without first requests and bursts ${fixed(ratios.p99WithoutFirstAndBursts, 2)}` +
    `\na burst: ${burstSize} or more slow answers, each within ${BURST_WINDOW_MS} ms of the one before; a full GC: mark-compact or its incremental finalisation, timed in the server`,
);
writeResult('tail', stamp, { ...numbers, burstSize, burstWindowMs: BURST_WINDOW_MS }, { rounds: summaries, ratios });
process.exit(0);
