// Issue 7's benchmark: the gateway against its floor, a plain client making the same 21 REST calls.
// Both run in their own process over the same upstream (the reference API, bench/upstream.ts) and
// are driven the same way by autocannon, in alternating rounds, for every cell of connections ×
// upstream delay; then the three-level latency check. Then issue 14's polled dashboard (bench/polled.ts). See
// bench/README.md for the method and the targets.
//   npm run bench                 # cells (clients x upstream ms) 10x0 50x0 10x5 50x5 15x200 50x200, 3 rounds × 10 s per side, three-level check; polled dashboard
//   npm run bench -- --quick      # a short smoke run (1 round × 2 s, 1 s warm-up; 10 s per polled mode)
//   npm run bench -- --rounds 2 --round-sec 15 --cells 15x200,50x200   # (or BENCH_CELLS)
//   npm run bench -- --only polled      # (or --only dashboard) one part alone
// Flags also read BENCH_ROUNDS, BENCH_ROUND_SEC, BENCH_WARMUP_SEC, BENCH_CELLS, ...
// Exit code 1 when a correctness check fails (answer differs from the floor's, a call without the
// key, a crash); a missed performance target only fails the run with --strict.
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { globalId as gatewayGlobalId } from '../src/schema/global-id.ts';
import { readFlags } from './lib/cli.ts';
import { type DriveResult, drive, postOnce } from './lib/drive.ts';
import { environment, loadAverage } from './lib/environment.ts';
import {
  type Child,
  cpuSeconds,
  productionNodeArgs,
  REPO_ROOT,
  RssSampler,
  startFloorProcess,
  startGateway,
  startScript,
  tail,
} from './lib/processes.ts';
import { DASHBOARD, DASHBOARD_CALLS, globalId, graphqlBody, THREE_LEVEL, THREE_LEVEL_CALLS } from './lib/queries.ts';
import { fileStamp, fixed, markdownTable, max, median, min, spread, table } from './lib/stats.ts';
import { callsPerAnsweredQuery, upstreamControl } from './lib/upstream-control.ts';
import { runPolled } from './polled.ts';

// Issue 21's targets, with `npm run start:prod`'s settings.
const TARGETS = {
  callsPerDashboard: DASHBOARD_CALLS,
  /** Gateway ÷ floor complete dashboards/s, in every cell. */
  minThroughputRatio: 0.8,
  /** Gateway ÷ floor p50 where the upstream is slow (the floor's latency is then two round trips). */
  maxSlowP50Ratio: 1.2,
  slowDelayMs: 100,
  /** Gateway ÷ floor p99, in every cell. */
  maxP99Ratio: 1.2,
  /** Peak RSS under load: at most this, or at most `maxPeakRssFloorRatio` × the floor process's. */
  maxPeakRssMb: 200,
  maxPeakRssFloorRatio: 1.3,
  threeLevelDelayMs: 50,
  /** 3 levels × 50 ms + 15 ms. */
  maxThreeLevelMs: 3 * 50 + 15,
};

/** Where users are (200 ms, the real service over the internet) and where the CPU matters (0 and 5 ms). */
const DEFAULT_CELLS = '10x0,50x0,10x5,50x5,15x200,50x200';

const { quick, numbers, lists, booleans, strings } = readFlags(
  {
    rounds: { env: 'BENCH_ROUNDS', default: 3, quick: 1 },
    'round-sec': { env: 'BENCH_ROUND_SEC', default: 10, quick: 2 },
    'warmup-sec': { env: 'BENCH_WARMUP_SEC', default: 3, quick: 1 },
    'three-level-sec': { env: 'BENCH_THREE_LEVEL_SEC', default: 10, quick: 2 },
    'polled-sec': { env: 'BENCH_POLLED_SEC', default: 60, quick: 10 },
    'polled-clients': { env: 'BENCH_POLLED_CLIENTS', default: 20 },
    'polled-keys': { env: 'BENCH_POLLED_KEYS', default: 4 },
    'hit-sec': { env: 'BENCH_HIT_SEC', default: 10, quick: 2 },
    'hit-connections': { env: 'BENCH_HIT_CONNECTIONS', default: 10 },
  },
  {
    'hit-delays': { env: 'BENCH_HIT_DELAYS', default: [0, 5, 50] },
  },
  ['strict', 'keep-log'],
  ['only', 'cells'],
);
const cellPlan = parseCells(strings.cells ?? process.env.BENCH_CELLS ?? DEFAULT_CELLS);
const only = strings.only;
if (only !== undefined && only !== 'dashboard' && only !== 'polled') throw new Error('--only takes `dashboard` or `polled`.');
const polled = () =>
  runPolled({
    quick,
    durationSec: numbers['polled-sec'],
    clients: numbers['polled-clients'],
    keys: numbers['polled-keys'],
    pollMs: 1000,
    writeMs: 5000,
    hitSec: numbers['hit-sec'],
    hitConnections: numbers['hit-connections'],
    hitDelays: lists['hit-delays'],
  });
if (only === 'polled') {
  const polledFailures = await polled();
  if (polledFailures.length > 0) console.error(`\nFAILED:\n- ${polledFailures.join('\n- ')}`);
  process.exit(polledFailures.length > 0 ? 1 : 0);
}
const rounds = Math.max(1, Math.round(numbers.rounds));
const roundSec = numbers['round-sec'];
const warmupSec = numbers['warmup-sec'];
const key = `bench-${randomUUID()}`;
const stamp = fileStamp();
const logFile = join(tmpdir(), `bench-run-gateway-${stamp}.log`);
const env = environment();
const failures: string[] = [];
const body = graphqlBody(DASHBOARD);

// The floor restates the gateway's id encoding: make sure they agree before comparing answers.
const sampleParts = ['0a6f2b1e-8c2d-4c1f-9d1e-5b7a3c2d1e0f', 42, 'a:b/c'] as const;
if (globalId('Member', ...sampleParts) !== gatewayGlobalId('Member', ...sampleParts)) {
  failures.push("bench/lib/queries.ts globalId() no longer matches src/schema/global-id.ts: update the floor's encoding");
}

console.log(
  `bench: cells ${cellPlan.map((c) => `${c.connections} clients × ${c.delayMs} ms`).join(', ')}, ` +
    `${rounds} round(s) × ${roundSec} s per side, ${warmupSec} s warm-up${quick ? ' (quick)' : ''}`,
);

const upstream = await startScript('bench/upstream.ts', ['--key', key]);
const control = upstreamControl(upstream.url);
const gateway = await startGateway({ upstreamUrl: upstream.url, logFile });
// The floor runs on the same V8 settings as the gateway (start:prod's flags): a ratio compares the
// code, not a tuned runtime against an untuned one.
const floor = await startFloorProcess(upstream.url);
const samplers = { gateway: new RssSampler(gateway.pid, 250), floor: new RssSampler(floor.pid, 250) };
let badAuthTotal = 0;
let callsTotal = 0;

type Side = 'gateway' | 'floor';
const sides: Record<Side, Child> = { gateway, floor };

/** The gateway's and the floor's answers must be the same JSON, and the key must have reached the upstream. */
async function checkAnswers(when: string) {
  await control.reset();
  const [g, f] = [await postOnce(gateway.url, key, body), await postOnce(floor.url, key, body)];
  const stats = await control.stats();
  badAuthTotal += stats.badAuth;
  callsTotal += stats.calls;
  const equal = isDeepStrictEqual(g.json, f.json);
  const gatewayErrors = (g.json as { errors?: unknown }).errors;
  if (g.status !== 200 || gatewayErrors)
    failures.push(`${when}: the gateway answered ${g.status} ${JSON.stringify(gatewayErrors ?? g.json).slice(0, 300)}`);
  if (!equal) failures.push(`${when}: the gateway's answer differs from the floor's`);
  if (stats.badAuth > 0 || stats.calls !== 2 * DASHBOARD_CALLS) {
    failures.push(
      `${when}: ${stats.calls} upstream calls for two dashboards (expected ${2 * DASHBOARD_CALLS}), ${stats.badAuth} without the key`,
    );
  }
  return {
    equal,
    gatewayStatus: g.status,
    floorStatus: f.status,
    upstreamCalls: stats.calls,
    badAuth: stats.badAuth,
    bytes: JSON.stringify(g.json).length,
  };
}

interface RoundResult {
  side: Side;
  round: number;
  load: Omit<DriveResult, 'answeredIds' | 'bodylessSamples'>;
  calls: ReturnType<typeof callsPerAnsweredQuery>;
  badAuth: number;
  /** TCP connections the upstream accepted during the round: a pool that keeps its sockets opens few. */
  upstreamConnections: number;
  peakRssMb: number;
  /** CPU time the side's process used per answered query, and the upstream's. */
  cpuMsPerQuery: number;
  upstreamCpuMsPerQuery: number;
}

async function runRound(side: Side, round: number, connections: number, query: string, durationSec: number): Promise<RoundResult> {
  await control.reset();
  const sampler = samplers[side];
  const from = sampler.now();
  const cpuBefore = [await cpuSeconds(sides[side].pid), await cpuSeconds(upstream.pid)];
  const result = await drive({ url: sides[side].url, connections, durationSec, key, body: graphqlBody(query), checkBodies: true });
  const to = sampler.now();
  const cpuAfter = [await cpuSeconds(sides[side].pid), await cpuSeconds(upstream.pid)];
  const cpuMs = (i: number) => (((cpuAfter[i] ?? Number.NaN) - (cpuBefore[i] ?? Number.NaN)) * 1000) / Math.max(1, result.requests);
  const stats = await control.stats(true);
  badAuthTotal += stats.badAuth;
  callsTotal += stats.calls;
  const { answeredIds, bodylessSamples, ...load } = result;
  return {
    side,
    round,
    load,
    calls: callsPerAnsweredQuery(stats, answeredIds),
    badAuth: stats.badAuth,
    upstreamConnections: stats.connections,
    peakRssMb: max(sampler.between(from, to + 250)),
    cpuMsPerQuery: cpuMs(0),
    upstreamCpuMsPerQuery: cpuMs(1),
  };
}

const before = await checkAnswers('before the load');

const cells: ReturnType<typeof summariseCell>[] = [];
for (const { connections, delayMs } of cellPlan) {
  await control.configure({ delayMs });
  process.stdout.write(`\ncell ${connections} connections, delay ${delayMs} ms: warm-up`);
  for (const side of ['gateway', 'floor'] as const) await drive({ url: sides[side].url, connections, durationSec: warmupSec, key, body });
  const results: RoundResult[] = [];
  for (let round = 0; round < rounds; round += 1) {
    // Alternate which side goes first, so a drift in the machine's load hits both alike.
    const order: Side[] = round % 2 === 0 ? ['gateway', 'floor'] : ['floor', 'gateway'];
    for (const side of order) {
      process.stdout.write(`, ${side} ${round + 1}`);
      results.push(await runRound(side, round, connections, DASHBOARD, roundSec));
    }
  }
  process.stdout.write('\n');
  cells.push(summariseCell(connections, delayMs, results));
}

/** `10x0,50x200`: clients × upstream delay in ms, in the order they run. */
function parseCells(text: string): { connections: number; delayMs: number }[] {
  return text.split(',').map((part) => {
    const match = /^\s*(\d+)x(\d+)\s*$/.exec(part);
    if (!match) throw new Error(`--cells (BENCH_CELLS) takes clients x delay-ms pairs, e.g. 10x0,50x200 (got "${part}").`);
    return { connections: Number(match[1]), delayMs: Number(match[2]) };
  });
}

function summariseCell(connections: number, delayMs: number, results: RoundResult[]) {
  const of = (side: Side) => results.filter((r) => r.side === side).sort((a, b) => a.round - b.round);
  const g = of('gateway');
  const f = of('floor');
  const ratio = (pick: (r: RoundResult) => number) => g.map((gr, i) => pick(gr) / pick(f[i] as RoundResult));
  const side = (rs: RoundResult[]) => ({
    qps: rs.map((r) => r.load.completePerSec),
    p50: rs.map((r) => r.load.latencyMs.p50),
    p99: rs.map((r) => r.load.latencyMs.p99),
    openConnectionP99: rs.map((r) => r.load.openConnectionLatencyMs.p99),
    firstRequestP50: rs.map((r) => r.load.firstRequestMs.p50),
    upstreamConnections: rs.map((r) => r.upstreamConnections),
    callsPerQuery: rs.map((r) => r.calls.mean),
    callsMin: min(rs.map((r) => r.calls.min)),
    callsMax: max(rs.map((r) => r.calls.max)),
    callsRaw: rs.map((r) => r.calls.raw),
    peakRssMb: max(rs.map((r) => r.peakRssMb)),
    cpuMsPerQuery: rs.map((r) => r.cpuMsPerQuery),
    upstreamCpuMsPerQuery: rs.map((r) => r.upstreamCpuMsPerQuery),
    non2xx: rs.reduce((n, r) => n + r.load.non2xx + r.load.errors + r.load.timeouts, 0),
    /** Answers that were not a full dashboard: no GraphQL body, or GraphQL errors. */
    incomplete: rs.reduce((n, r) => n + r.load.bodyless + r.load.withErrors, 0),
    errorCodes: rs.reduce<Record<string, number>>((all, r) => {
      for (const [code, n] of Object.entries(r.load.errorCodes)) all[code] = (all[code] ?? 0) + n;
      return all;
    }, {}),
    errorSamples: rs.flatMap((r) => r.load.errorSamples).slice(0, 5),
  });
  return {
    connections,
    delayMs,
    gateway: side(g),
    floor: side(f),
    ratios: {
      qps: ratio((r) => r.load.completePerSec),
      p50: ratio((r) => r.load.latencyMs.p50),
      p99: ratio((r) => r.load.latencyMs.p99),
      openConnectionP99: ratio((r) => r.load.openConnectionLatencyMs.p99),
      cpuPerQuery: ratio((r) => r.cpuMsPerQuery),
    },
    rounds: results,
  };
}

// The three-level query: organizations -> projects (from `teams`, no call) -> surveys, one connection, 50 ms upstream.
await control.configure({ delayMs: TARGETS.threeLevelDelayMs });
process.stdout.write(`\nthree-level check: 1 connection, delay ${TARGETS.threeLevelDelayMs} ms, ${numbers['three-level-sec']} s\n`);
const threeLevelProbe = await postOnce(gateway.url, key, graphqlBody(THREE_LEVEL));
if (threeLevelProbe.status !== 200 || (threeLevelProbe.json as { errors?: unknown }).errors) {
  failures.push(`the three-level query failed: ${JSON.stringify(threeLevelProbe.json).slice(0, 300)}`);
}
const threeLevel = await runRound('gateway', 0, 1, THREE_LEVEL, numbers['three-level-sec']);
await control.configure({ delayMs: 0 });

const after = await checkAnswers('after the load');
const gatewayPeakSinceStartMb = await samplers.gateway.peakSinceStartMb();
const floorPeakSinceStartMb = await samplers.floor.peakSinceStartMb();
samplers.gateway.stop();
samplers.floor.stop();
const gatewayAlive = gateway.exit === undefined;
if (!gatewayAlive) failures.push(`the gateway exited during the run: ${JSON.stringify(gateway.exit)}`);
if (badAuthTotal > 0) failures.push(`${badAuthTotal} upstream calls did not carry Authorization: Bearer <key>`);
for (const cell of cells) {
  for (const side of ['gateway', 'floor'] as const) {
    const s = cell[side];
    if (s.non2xx > 0)
      failures.push(`${cell.connections}c/${cell.delayMs}ms: ${s.non2xx} ${side} requests failed (non-2xx, connection errors or timeouts)`);
    if (s.incomplete > 0) {
      failures.push(
        `${cell.connections}c/${cell.delayMs}ms: ${s.incomplete} ${side} answers were not a full dashboard (${JSON.stringify(s.errorCodes)}; e.g. ${JSON.stringify(s.errorSamples[0])})`,
      );
    }
  }
}
const gatewayExit = await gateway.stop();
await floor.stop();
await upstream.stop();

// Targets.
const targets: { target: string; measured: string; met: boolean | undefined }[] = [];
targets.push({
  target: `upstream calls per dashboard exactly ${DASHBOARD_CALLS} in every cell`,
  measured: cells.map((c) => `${c.connections}c/${c.delayMs}ms: ${c.gateway.callsMin}–${c.gateway.callsMax}`).join('; '),
  met: cells.every((c) => c.gateway.callsMin === DASHBOARD_CALLS && c.gateway.callsMax === DASHBOARD_CALLS),
});
targets.push({
  target: `complete dashboards/s ≥ ${TARGETS.minThroughputRatio} × floor in every cell`,
  measured: cells.map((c) => `${c.connections}c/${c.delayMs}ms: ${spread(c.ratios.qps)}`).join('; '),
  met: cells.every((c) => median(c.ratios.qps) >= TARGETS.minThroughputRatio),
});
const slowCells = cells.filter((c) => c.delayMs >= TARGETS.slowDelayMs);
targets.push({
  target: `p50 ≤ ${TARGETS.maxSlowP50Ratio} × floor where the upstream takes ≥ ${TARGETS.slowDelayMs} ms`,
  measured: slowCells.length
    ? slowCells.map((c) => `${c.connections}c/${c.delayMs}ms: ${spread(c.ratios.p50)}`).join('; ')
    : 'cell not run',
  met: slowCells.length ? slowCells.every((c) => median(c.ratios.p50) <= TARGETS.maxSlowP50Ratio) : undefined,
});
targets.push({
  target: `p99 ≤ ${TARGETS.maxP99Ratio} × floor in every cell`,
  measured: cells.map((c) => `${c.connections}c/${c.delayMs}ms: ${spread(c.ratios.p99)}`).join('; '),
  met: cells.every((c) => median(c.ratios.p99) <= TARGETS.maxP99Ratio),
});
const peakRss = max(cells.map((c) => c.gateway.peakRssMb));
const floorPeakRss = max(cells.map((c) => c.floor.peakRssMb));
targets.push({
  target: `gateway peak RSS under load ≤ ${TARGETS.maxPeakRssMb} MB or ≤ ${TARGETS.maxPeakRssFloorRatio} × the floor's`,
  measured: `${fixed(peakRss)} MB (floor ${fixed(floorPeakRss)} MB, ${fixed(peakRss / floorPeakRss, 2)} ×)`,
  met: peakRss <= TARGETS.maxPeakRssMb || peakRss <= TARGETS.maxPeakRssFloorRatio * floorPeakRss,
});
targets.push({
  target: `three-level query, 50 ms upstream, 1 connection < ${TARGETS.maxThreeLevelMs} ms`,
  measured: `median ${fixed(threeLevel.load.latencyMs.p50)} ms (p99 ${fixed(threeLevel.load.latencyMs.p99)}, ${fixed(threeLevel.calls.mean, 2)} calls/query)`,
  met: threeLevel.load.latencyMs.p50 < TARGETS.maxThreeLevelMs,
});
if (threeLevel.load.withErrors + threeLevel.load.bodyless + threeLevel.load.non2xx > 0) {
  failures.push(
    `three-level: ${threeLevel.load.withErrors + threeLevel.load.bodyless + threeLevel.load.non2xx} answers were incomplete (${JSON.stringify(threeLevel.load.errorCodes)})`,
  );
}
if (threeLevel.calls.min !== THREE_LEVEL_CALLS || threeLevel.calls.max !== THREE_LEVEL_CALLS) {
  failures.push(`three-level: ${threeLevel.calls.min}–${threeLevel.calls.max} upstream calls per query, expected ${THREE_LEVEL_CALLS}`);
}

// Output.
const date = new Date().toISOString();
const cellRows = cells.map((c) => [
  `${c.connections}`,
  `${c.delayMs}`,
  spread(c.gateway.qps, 0),
  spread(c.floor.qps, 0),
  spread(c.ratios.qps),
  `${fixed(median(c.gateway.p50))} / ${fixed(median(c.floor.p50))}`,
  spread(c.ratios.p50),
  `${fixed(median(c.gateway.p99))} / ${fixed(median(c.floor.p99))}`,
  spread(c.ratios.p99),
  `${fixed(median(c.gateway.callsPerQuery), 2)} (${c.gateway.callsMin}–${c.gateway.callsMax})`,
  `${fixed(c.gateway.peakRssMb, 0)} / ${fixed(c.floor.peakRssMb, 0)}`,
  `${fixed(median(c.gateway.cpuMsPerQuery), 2)} / ${fixed(median(c.floor.cpuMsPerQuery), 2)} (${fixed(median(c.ratios.cpuPerQuery), 1)}×)`,
]);
const headers = [
  'conns',
  'delay ms',
  'gateway q/s',
  'floor q/s',
  'q/s ratio',
  'p50 ms gw / floor',
  'p50 ratio',
  'p99 ms gw / floor',
  'p99 ratio',
  'calls/query',
  'peak RSS MB gw / floor',
  'CPU ms/query gw / floor',
];
console.log(`\n${table(headers, cellRows)}`);
const legend =
  'q/s and ratios: median (min–max) over rounds, ratios gateway ÷ floor paired per round; p50/p99 and CPU: median over rounds; ' +
  'calls/query: mean (min–max) over answered queries; CPU ms/query: user+system time of that process per answered query';
console.log(`(${legend})`);
console.log(
  `\nthree-level (1 connection, 50 ms upstream): p50 ${fixed(threeLevel.load.latencyMs.p50)} ms, p99 ${fixed(threeLevel.load.latencyMs.p99)} ms, ` +
    `mean ${fixed(threeLevel.load.latencyMs.mean)} ms over ${threeLevel.load.requests} queries, ${fixed(threeLevel.calls.mean, 2)} upstream calls each`,
);
console.log(
  `\n${table(
    ['target', 'measured', 'met'],
    targets.map((t) => [t.target, t.measured, t.met === undefined ? 'n/a' : t.met ? 'yes' : 'NO']),
  )}`,
);
// Not a target: the p99 without each connection's first request, which waits for the server to
// accept its connection, one per event-loop turn under load (DriveResult.openConnectionLatencyMs).
const openConnectionHeaders = [
  'conns',
  'delay ms',
  'p99 ms on open connections gw / floor',
  'ratio',
  'first requests p50 ms gw / floor',
  'upstream connections opened per round gw / floor',
];
const openConnectionRows = cells.map((c) => [
  `${c.connections}`,
  `${c.delayMs}`,
  `${fixed(median(c.gateway.openConnectionP99))} / ${fixed(median(c.floor.openConnectionP99))}`,
  spread(c.ratios.openConnectionP99),
  `${fixed(median(c.gateway.firstRequestP50))} / ${fixed(median(c.floor.firstRequestP50))}`,
  `${c.gateway.upstreamConnections.join(', ')} / ${c.floor.upstreamConnections.join(', ')}`,
]);
const openConnectionNote =
  "Not a target: the p99 without each connection's first request, which waits in the accept queue, and the TCP connections the upstream accepted in each round (an idle pool's sockets time out between rounds)";
console.log(`\n${table(openConnectionHeaders, openConnectionRows)}\n(${openConnectionNote})`);
console.log(
  `\ncorrectness: answers equal before ${before.equal} / after ${after.equal}; upstream calls without the key: ${badAuthTotal} of ${callsTotal}; ` +
    `gateway alive ${gatewayAlive}, exit after SIGTERM ${JSON.stringify(gatewayExit)}; gateway VmHWM ${fixed(gatewayPeakSinceStartMb)} MB, floor ${fixed(floorPeakSinceStartMb)} MB`,
);

const versions = `node ${env.node}, graphql ${env.graphql}, graphql-yoga ${env.graphqlYoga}, undici ${env.undici}, ${env.cpus} cores`;
const markdown = [
  `**${date.slice(0, 10)}** — ${versions}; commit ${env.commit}${env.dirtySrc.length ? ' + uncommitted src changes' : ''}; ` +
    `${rounds} × ${roundSec} s per side${quick ? ' (quick)' : ''}; machine shared with other test runs (load average ${env.loadAverageAtStart.join(' ')} at start, ${loadAverage().join(' ')} at end).`,
  '',
  markdownTable(headers, cellRows),
  '',
  `${legend}.`,
  '',
  `Three-level query (1 connection, 50 ms upstream delay): p50 ${fixed(threeLevel.load.latencyMs.p50)} ms, p99 ${fixed(threeLevel.load.latencyMs.p99)} ms (target < ${TARGETS.maxThreeLevelMs} ms).`,
  '',
  markdownTable(
    ['target', 'measured', 'met'],
    targets.map((t) => [t.target, t.measured, t.met === undefined ? 'n/a' : t.met ? 'yes' : '**no**']),
  ),
  '',
  markdownTable(openConnectionHeaders, openConnectionRows),
  '',
  `${openConnectionNote}.`,
  '',
].join('\n');

mkdirSync(resolve(REPO_ROOT, 'bench/results'), { recursive: true });
const base = resolve(REPO_ROOT, `bench/results/bench-${stamp}${quick ? '-quick' : ''}`);
writeFileSync(
  `${base}.json`,
  `${JSON.stringify(
    {
      kind: 'bench',
      date,
      quick,
      settings: {
        rounds,
        roundSec,
        warmupSec,
        cells: cellPlan,
        threeLevelSec: numbers['three-level-sec'],
        gatewayEnv: { NODE_ENV: 'production' },
        nodeFlags: { both: productionNodeArgs(), gatewayExtra: process.env.BENCH_GATEWAY_NODE_ARGS ?? '' },
      },
      environment: {
        ...env,
        loadAverageAtEnd: loadAverage(),
        sharedMachine: 'other agents ran their tests on the same 2-core machine during this run',
      },
      correctness: { before, after, badAuthTotal, callsTotal, gatewayAlive, gatewayExit },
      memory: { gatewayPeakSinceStartMb, floorPeakSinceStartMb },
      targets,
      cells,
      threeLevel,
      failures,
    },
    null,
    2,
  )}\n`,
);
writeFileSync(`${base}.md`, markdown);
console.log(`\nresults: ${relative(REPO_ROOT, `${base}.json`)}; table for bench/README.md: ${relative(REPO_ROOT, `${base}.md`)}`);

if (only !== 'dashboard') failures.push(...(await polled()));
if (booleans['keep-log'] || failures.length > 0) console.log(`gateway log: ${logFile}`);
else rmSync(logFile, { force: true });
const missed = targets.filter((t) => t.met === false);
if (failures.length > 0) {
  console.error(`\nFAILED:\n- ${failures.join('\n- ')}\n\ngateway log tail:\n${tail(logFile)}`);
  process.exit(1);
}
if (missed.length > 0 && booleans.strict) {
  console.error(`\n${missed.length} target(s) missed (--strict).`);
  process.exit(1);
}
console.log(missed.length > 0 ? `\ncorrect; ${missed.length} target(s) missed.` : '\ncorrect; every target met.');
process.exit(0);
