// Issue 20's overload run: the gateway (built and started as `start:prod`, all settings at their
// defaults) over the reference API (bench/upstream.ts) answering every
// call in 200 ms, driven by closed-loop clients that send the 21-call dashboard and honour Retry-After. Four scenarios, each on a fresh gateway:
// capacity (15 clients), 600 clients, 1000 clients, and 500 clients of one key beside 20 of another.
//   npm run bench:overload                           # 5 s warm-up + 40 s per scenario
//   npm run bench:overload -- --quick                # 2 + 5 s per scenario
//   BENCH_SCENARIOS=capacity,1000 npm run bench:overload -- --duration 60
// Every flag also reads an environment variable (BENCH_DURATION, BENCH_DELAY_MS, ...). Measures per
// scenario: good dashboards/s, p99 of their latency, refusals (count, latency at the client and, from
// the gateway's request log, at the server), other answers by code (any UPSTREAM_* with a healthy
// upstream is a failure of the gateway), answers that never came, the gateway's peak RSS and CPU,
// `/health` latency every 100 ms from a worker thread, and the benchmark's own CPU.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { readFlags } from './lib/cli.ts';
import { type ClosedLoopResult, runClosedLoop } from './lib/closed-loop.ts';
import { environment, loadAverage } from './lib/environment.ts';
import type { ProbeResult } from './lib/health-probe.ts';
import { cpuSeconds, REPO_ROOT, RssSampler, startGateway, startScript } from './lib/processes.ts';
import { DASHBOARD, graphqlBody } from './lib/queries.ts';
import { fileStamp, fixed, percentile, table } from './lib/stats.ts';

const { quick, numbers } = readFlags({
  duration: { env: 'BENCH_DURATION', default: 40, quick: 5 },
  warmup: { env: 'BENCH_WARMUP', default: 5, quick: 2 },
  'delay-ms': { env: 'BENCH_DELAY_MS', default: 200 },
  'capacity-clients': { env: 'BENCH_CAPACITY_CLIENTS', default: 15 },
  'heavy-clients': { env: 'BENCH_HEAVY_CLIENTS', default: 500 },
  'light-clients': { env: 'BENCH_LIGHT_CLIENTS', default: 20 },
  /** Used as the capacity when the capacity scenario is not run. */
  capacity: { env: 'BENCH_CAPACITY', default: 0 },
  /** A client whose connection was closed without an answer waits this long before sending again. */
  'backoff-ms': { env: 'BENCH_BACKOFF_MS', default: 1000 },
});
const SCENARIOS = ['capacity', '600', '1000', 'fair'] as const;
type Scenario = (typeof SCENARIOS)[number];
const scenarios = (process.env.BENCH_SCENARIOS?.split(',') ?? [...SCENARIOS]) as Scenario[];
const unknown = scenarios.filter((name) => !(SCENARIOS as readonly string[]).includes(name));
if (unknown.length) throw new Error(`BENCH_SCENARIOS: unknown ${unknown.join(', ')} (known: ${SCENARIOS.join(', ')})`);
const heavyKey = `bench-heavy-${randomUUID()}`;
const lightKey = `bench-light-${randomUUID()}`;
const stamp = fileStamp();
const body = graphqlBody(DASHBOARD);
const env = environment();

const isWholeDashboard = (json: unknown) => {
  const response = json as { data?: { organizations?: { nodes?: unknown[] } }; errors?: unknown } | undefined;
  return !response?.errors && response?.data?.organizations?.nodes?.length === 5;
};

const upstream = await startScript('bench/upstream.ts', ['--key', heavyKey, '--key', lightKey, '--delay-ms', String(numbers['delay-ms'])]);
console.log(
  `overload: upstream ${numbers['delay-ms']} ms per call, ${numbers.warmup} s warm-up + ${numbers.duration} s per scenario (${scenarios.join(', ')})${quick ? ' (quick)' : ''}`,
);

interface ScenarioResult {
  scenario: Scenario;
  groups: { key: 'heavy' | 'light'; clients: number; result: ClosedLoopResult }[];
  gateway: {
    peakRssMb: number | undefined;
    cpuSeconds: number;
    /** From the request log: server-side duration of every 503 OVERLOADED answer in the counted window. */
    refusalMs: { count: number; p50: number; p99: number; max: number };
    /** From the request log: p99 of the server-side duration of answers without errors (the client's minus time outside the gateway's handling). */
    goodP99Ms: number;
    /** From the request log: error codes of every request in the counted window. */
    errorCodes: Record<string, number>;
    /** From `/metrics` at the end: refusals by reason, since the gateway started (warm-up included). */
    refusedByReason: Record<string, number>;
  };
  health: { probes: number; failed: number; p50: number; p99: number; max: number; over100ms: number };
  bench: { cpuShareOfOneCore: number; eventLoopDelayP99Ms: number };
}

const results: ScenarioResult[] = [];
for (const scenario of scenarios) results.push(await runScenario(scenario));
await upstream.stop();

async function runScenario(scenario: Scenario): Promise<ScenarioResult> {
  const logFile = join(tmpdir(), `bench-overload-${scenario}-${stamp}.log`);
  // At 1000 clients, 200 are past MAX_CONNECTIONS' default of 800: refused with 503 and closed (docs/overload.md).
  const gateway = await startGateway({ upstreamUrl: upstream.url, logFile });
  const rss = new RssSampler(gateway.pid, 250);
  const origin = new URL(gateway.url).origin;
  const probe = new Worker(
    // Node 20 loads a worker's .ts entry before its `--import tsx` runs: register tsx, then import it.
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(new URL('./lib/health-probe.ts', import.meta.url).href)}); })`,
    { eval: true, workerData: { origin, intervalMs: 100 } },
  );
  const probed = new Promise<ProbeResult>((resolveProbe) => probe.once('message', resolveProbe));
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const cpuBefore = process.cpuUsage();
  const gatewayCpuBefore = (await cpuSeconds(gateway.pid)) ?? Number.NaN;
  const startedAt = performance.now();
  const wallStart = Date.now();
  const countFrom = startedAt + numbers.warmup * 1000;
  const stopAt = countFrom + numbers.duration * 1000;
  const group = (key: 'heavy' | 'light', clients: number) =>
    runClosedLoop({
      url: gateway.url,
      clients,
      key: key === 'heavy' ? heavyKey : lightKey,
      body,
      countFrom,
      stopAt,
      isGood: isWholeDashboard,
      backoffMs: numbers['backoff-ms'],
    }).then((result) => ({ key, clients, result }));
  const groups = await Promise.all(
    scenario === 'fair'
      ? [group('heavy', numbers['heavy-clients']), group('light', numbers['light-clients'])]
      : [group('heavy', scenario === 'capacity' ? numbers['capacity-clients'] : Number(scenario))],
  );
  const cpu = process.cpuUsage(cpuBefore);
  loopDelay.disable();
  probe.postMessage('stop');
  const health = await probed;
  const gatewayCpu = ((await cpuSeconds(gateway.pid)) ?? Number.NaN) - gatewayCpuBefore;
  await rss.sample();
  const peakRssMb = await rss.peakSinceStartMb();
  rss.stop();
  const refusedByReason = await refusalsByReason(origin);
  await gateway.stop(2000);
  const log = readRequestLog(logFile, wallStart + numbers.warmup * 1000, wallStart + (numbers.warmup + numbers.duration) * 1000);
  rmSync(logFile, { force: true });
  const healthSorted = [...health.latencyMs].sort((a, b) => a - b);
  const refusalSorted = [...log.refusalMs].sort((a, b) => a - b);
  return {
    scenario,
    groups,
    gateway: {
      peakRssMb,
      cpuSeconds: gatewayCpu,
      goodP99Ms: percentile(
        [...log.goodMs].sort((a, b) => a - b),
        99,
      ),
      refusalMs: {
        count: refusalSorted.length,
        p50: percentile(refusalSorted, 50),
        p99: percentile(refusalSorted, 99),
        max: refusalSorted.at(-1) ?? Number.NaN,
      },
      errorCodes: log.errorCodes,
      refusedByReason,
    },
    health: {
      probes: health.latencyMs.length + health.failed,
      failed: health.failed,
      p50: percentile(healthSorted, 50),
      p99: percentile(healthSorted, 99),
      max: healthSorted.at(-1) ?? Number.NaN,
      over100ms: healthSorted.filter((ms) => ms >= 100).length,
    },
    bench: {
      cpuShareOfOneCore: (cpu.user + cpu.system) / 1000 / (performance.now() - startedAt),
      eventLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    },
  };
}

/** `gateway_admission_refused_total` by reason, from the gateway's `/metrics`. */
async function refusalsByReason(origin: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const byReason: Record<string, number> = {};
  for (const [, reason, count] of text.matchAll(/^gateway_admission_refused_total\{reason="([^"]+)"\} (\d+)/gm)) {
    byReason[reason as string] = Number(count);
  }
  return byReason;
}

/** The gateway's request lines (one JSON line per GraphQL request) of requests that arrived in [from, to). */
function readRequestLog(file: string, from: number, to: number) {
  const refusalMs: number[] = [];
  const goodMs: number[] = [];
  const errorCodes: Record<string, number> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.includes('"graphql request"')) continue;
    const entry = JSON.parse(line) as { time: string; status: number; durationMs: number; errorCodes: string[] };
    // Requests that arrived after the warm-up, as the clients count them (by when they were sent).
    const arrivedAt = Date.parse(entry.time) - entry.durationMs;
    if (arrivedAt < from || arrivedAt >= to) continue;
    if (entry.status === 503 && entry.errorCodes.includes('OVERLOADED')) refusalMs.push(entry.durationMs);
    if (entry.status === 200 && entry.errorCodes.length === 0) goodMs.push(entry.durationMs);
    for (const code of entry.errorCodes) errorCodes[code] = (errorCodes[code] ?? 0) + 1;
  }
  return { refusalMs, goodMs, errorCodes };
}

const capacityResult = results.find((r) => r.scenario === 'capacity');
const capacity = capacityResult ? goodPerSec(capacityResult.groups[0]?.result) : numbers.capacity;
function goodPerSec(result: ClosedLoopResult | undefined): number {
  return result ? result.good / numbers.duration : Number.NaN;
}
const p99 = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    99,
  );
const upstreamErrors = (r: ScenarioResult) =>
  Object.entries(r.gateway.errorCodes)
    .filter(([code]) => code.startsWith('UPSTREAM_'))
    .reduce((sum, [, n]) => sum + n, 0);

const rows = results.map((r) => {
  const all = r.groups.map((g) => g.result);
  const good = all.reduce((sum, g) => sum + g.good, 0);
  const light = r.groups.find((g) => g.key === 'light');
  const noAnswer = all.flatMap((g) => Object.entries(g.noAnswer));
  const other = all.flatMap((g) => Object.entries(g.other));
  return [
    r.scenario === 'fair' ? `${numbers['heavy-clients']} + ${numbers['light-clients']}` : String(r.groups[0]?.clients),
    fixed(good / numbers.duration, 1),
    fixed(good / numbers.duration / capacity, 2),
    `${fixed(p99(all.flatMap((g) => g.goodLatencyMs)) / 1000, 2)} / ${fixed(r.gateway.goodP99Ms / 1000, 2)}`,
    `${all.reduce((sum, g) => sum + g.refused, 0)} (${Object.entries(r.gateway.refusedByReason)
      .map(([reason, n]) => `${reason} ${n}`)
      .join(', ')})`,
    `${fixed(r.gateway.refusalMs.p99, 1)} / ${fixed(p99(all.flatMap((g) => g.refusalLatencyMs)), 1)}`,
    String(upstreamErrors(r)),
    other.length ? other.map(([k, n]) => `${k}: ${n}`).join('; ') : '0',
    noAnswer.length ? noAnswer.map(([k, n]) => `${k}: ${n}`).join('; ') : '0',
    fixed(r.gateway.peakRssMb, 0),
    `${fixed(r.health.p99, 1)} / ${fixed(r.health.max, 1)} (${r.health.over100ms} ≥ 100, ${r.health.failed} failed)`,
    light ? `${fixed(goodPerSec(light.result), 1)}/s = ${fixed(goodPerSec(light.result) / capacity, 2)}` : '-',
    `${fixed(r.bench.cpuShareOfOneCore * 100, 0)}% (loop p99 ${fixed(r.bench.eventLoopDelayP99Ms, 0)} ms)`,
  ];
});
const headers = [
  'clients',
  'dashboards/s',
  '× capacity',
  'p99 good s client / server',
  'refused (by reason, warm-up included)',
  'refusal p99 ms server / client',
  'UPSTREAM_* errors',
  'other answers',
  'no answer',
  'peak RSS MB',
  '/health p99 / max ms',
  'light key',
  'bench CPU',
];
console.log(`\n${table(headers, rows)}\n`);

mkdirSync(resolve(REPO_ROOT, 'bench/results'), { recursive: true });
const out = resolve(REPO_ROOT, `bench/results/overload-${stamp}${quick ? '-quick' : ''}.json`);
const summary = {
  kind: 'overload',
  date: new Date().toISOString(),
  quick,
  settings: { ...numbers, scenarios, gatewayEnv: { NODE_ENV: 'production' } },
  environment: { ...env, loadAverageAtEnd: loadAverage() },
  capacity,
  table: { headers, rows },
  scenarios: results.map((r) => ({
    ...r,
    groups: r.groups.map((g) => ({
      key: g.key,
      clients: g.clients,
      good: g.result.good,
      goodPerSec: goodPerSec(g.result),
      goodLatencyMs: {
        p50: percentile(
          [...g.result.goodLatencyMs].sort((a, b) => a - b),
          50,
        ),
        p99: p99(g.result.goodLatencyMs),
      },
      refused: g.result.refused,
      refusalLatencyMs: { p99: p99(g.result.refusalLatencyMs) },
      retryAfterSeconds: g.result.retryAfterSeconds,
      other: g.result.other,
      noAnswer: g.result.noAnswer,
    })),
  })),
};
writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
console.log(`results: ${relative(REPO_ROOT, out)}`);
process.exit(0);
