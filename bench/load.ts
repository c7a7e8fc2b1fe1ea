// Issue 5's load run: the gateway (production settings, its own process) over an upstream that
// fails 2% of its answers, driven by autocannon at 100 connections for 60 s with the dashboard query.
// It must not crash, must answer every request with a GraphQL body, and its memory must stay flat.
//   npm run bench:load                          # 100 connections, 60 s
//   npm run bench:load -- --quick               # 5 s smoke run
//   npm run bench:load -- --duration 30 --connections 50 --fault-rate 0.05 --delay-ms 2
// Issue 12's chaos run (`npm run bench:chaos`, i.e. `--chaos`): 50 connections for 60 s, 15% faults of
// every kind (slow drips and wrong shapes included), one request in ten a mutation (a write), and
// REQUEST_DEADLINE_MS set: also no request may end later than its deadline plus the stated
// precision, no write may reach the upstream twice, and memory must be flat after warm-up.
// Every flag also reads an environment variable (BENCH_DURATION, BENCH_CONNECTIONS, ...).
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { CLASSIC_FAULTS, FAULT_KINDS } from '../src/reference-api/faults.ts';
import { readFlags } from './lib/cli.ts';
import { drive, postOnce } from './lib/drive.ts';
import { environment, loadAverage } from './lib/environment.ts';
import { cpuSeconds, REPO_ROOT, RssSampler, startGateway, startScript, tail } from './lib/processes.ts';
import { DASHBOARD, globalId, graphqlBody, PAUSE_BATCH_EXPORT } from './lib/queries.ts';
import { fileStamp, fixed, mean, table } from './lib/stats.ts';
import { upstreamControl } from './lib/upstream-control.ts';

const chaos = process.argv.includes('--chaos') || process.env.BENCH_CHAOS === '1';
const { quick, numbers, booleans } = readFlags(
  {
    duration: { env: 'BENCH_DURATION', default: 60, quick: 5 },
    connections: { env: 'BENCH_CONNECTIONS', default: chaos ? 50 : 100 },
    'delay-ms': { env: 'BENCH_DELAY_MS', default: 0 },
    'fault-rate': { env: 'BENCH_FAULT_RATE', default: chaos ? 0.15 : 0.02 },
    'timeout-ms': { env: 'BENCH_UPSTREAM_TIMEOUT_MS', default: 1000 },
    /** REQUEST_DEADLINE_MS of the gateway; 0 leaves the gateway's default. */
    'deadline-ms': { env: 'BENCH_REQUEST_DEADLINE_MS', default: chaos ? 3000 : 0 },
    /** How far past its deadline a request may end (the precision the README states for REQUEST_DEADLINE_MS). */
    'deadline-precision-ms': { env: 'BENCH_DEADLINE_PRECISION_MS', default: 100 },
    /** One request in this many is a mutation (pauseBatchExport); 0: only queries. */
    'mutation-every': { env: 'BENCH_MUTATION_EVERY', default: chaos ? 10 : 0 },
    seed: { env: 'BENCH_SEED', default: 1 },
    /** Memory is "flat" when the last window's mean RSS is within this share of the first's. */
    'flat-tolerance': { env: 'BENCH_FLAT_TOLERANCE', default: 0.15 },
  },
  {},
  ['keep-log', 'chaos'],
);
const faultKinds = chaos ? [...FAULT_KINDS] : [...CLASSIC_FAULTS];
const deadlineMs = numbers['deadline-ms'];
const durationSec = numbers.duration;
const key = `bench-${randomUUID()}`;
const stamp = fileStamp();
const logFile = join(tmpdir(), `bench-load-gateway-${stamp}.log`);
const env = environment();

const gatewayEnv: Record<string, string> = { UPSTREAM_TIMEOUT_MS: String(numbers['timeout-ms']) };
if (deadlineMs > 0) gatewayEnv.REQUEST_DEADLINE_MS = String(deadlineMs);
console.log(
  `${chaos ? 'chaos' : 'load'}: ${numbers.connections} connections, ${durationSec} s, upstream delay ${numbers['delay-ms']} ms, ` +
    `faults ${(numbers['fault-rate'] * 100).toFixed(1)}% (${faultKinds.join(', ')}), ${JSON.stringify(gatewayEnv)}` +
    `${numbers['mutation-every'] > 0 ? `, one request in ${numbers['mutation-every']} a mutation` : ''}${quick ? ' (quick)' : ''}`,
);

const upstream = await startScript('bench/upstream.ts', [
  '--key',
  key,
  '--delay-ms',
  String(numbers['delay-ms']),
  '--slow-ms',
  String(numbers['timeout-ms'] + 500),
]);
const control = upstreamControl(upstream.url);
const gateway = await startGateway({ upstreamUrl: upstream.url, logFile, env: gatewayEnv });
const rss = new RssSampler(gateway.pid, 1000);
let crashedDuringLoad = false;
void gateway.exited.then(() => {
  crashedDuringLoad = true;
});

const failures: string[] = [];
const body = graphqlBody(DASHBOARD);
// The writes: pausing the first organization's first export, from 1 in `mutation-every` requests.
const firstOrg = (await firstRecord(`${upstream.url}/api/organizations/`)).id;
const firstExport = (await firstRecord(`${upstream.url}/api/organizations/${firstOrg}/batch_exports/`)).id;
const mutation = JSON.stringify({ query: PAUSE_BATCH_EXPORT, variables: { id: globalId('BatchExport', firstOrg, firstExport) } });
const moreBodies = numbers['mutation-every'] > 0 ? [...Array.from({ length: numbers['mutation-every'] - 2 }, () => body), mutation] : [];

// Before the faults: the dashboard must answer in full.
const probe = await postOnce(gateway.url, key, body);
const probeOk = probe.status === 200 && !(probe.json as { errors?: unknown }).errors;
if (!probeOk) failures.push(`the fault-free probe failed: ${probe.status} ${JSON.stringify(probe.json).slice(0, 300)}`);

await control.configure({ faultRate: numbers['fault-rate'], faultKinds, seed: numbers.seed });
await control.reset();
const loadStart = rss.now();
const cpuBefore = await cpuSeconds(gateway.pid);
const result = await drive({
  url: gateway.url,
  connections: numbers.connections,
  durationSec,
  key,
  body,
  moreBodies,
  requestIdPrefix: `load-${stamp}`,
  checkBodies: true,
});
const loadEnd = rss.now();
const gatewayCpuSec = ((await cpuSeconds(gateway.pid)) ?? Number.NaN) - (cpuBefore ?? Number.NaN);
const upstreamStats = await control.stats();
await control.configure({ faultRate: 0 });

// Still alive and still answering after the load?
const aliveAfterLoad = gateway.exit === undefined && !crashedDuringLoad;
const after = aliveAfterLoad
  ? await postOnce(gateway.url, key, body).catch((error: unknown) => ({ status: 0, json: String(error) }))
  : undefined;
const answersAfterLoad = after?.status === 200 && !(after.json as { errors?: unknown }).errors;
await rss.sample();
const peakRssMb = await rss.peakSinceStartMb();
rss.stop();
const exit = await gateway.stop();
await upstream.stop();

// Memory: the mean RSS of the load's first seconds against its last seconds.
const windowSec = Math.min(10, durationSec / 2);
const firstWindow = rss.between(loadStart, loadStart + windowSec * 1000);
const lastWindow = rss.between(loadEnd - windowSec * 1000, loadEnd);
const firstMb = mean(firstWindow);
const lastMb = mean(lastWindow);
const growth = (lastMb - firstMb) / firstMb;
const flat = Math.abs(growth) <= numbers['flat-tolerance'];
// The heap grows to its working size during the first seconds of load; a leak keeps growing after.
// So also compare the second window with the last, and fit a line through everything after the first window.
const secondWindow = rss.between(loadStart + windowSec * 1000, loadStart + 2 * windowSec * 1000);
const afterWarmup = durationSec >= 3 * windowSec ? (mean(lastWindow) - mean(secondWindow)) / mean(secondWindow) : Number.NaN;
const slopeMbPerMin = slope(rss.samples.filter((x) => x.t >= loadStart + windowSec * 1000 && x.t <= loadEnd)) * 60_000;

const noResponse = result.errors + result.timeouts;
if (!aliveAfterLoad) failures.push(`the gateway crashed during the load (exit ${JSON.stringify(gateway.exit)})`);
if (aliveAfterLoad && !answersAfterLoad)
  failures.push(`the gateway did not answer the dashboard after the load: ${JSON.stringify(after?.json).slice(0, 300)}`);
if (result.bodyless > 0) failures.push(`${result.bodyless} responses had no GraphQL body`);
if (noResponse > 0)
  failures.push(`${noResponse} requests got no response at all (${result.errors} connection errors, ${result.timeouts} timeouts)`);
if (result.requests === 0) failures.push('no request was answered');
if (!flat) console.warn(`warning: RSS grew ${(growth * 100).toFixed(1)}% from the first to the last ${windowSec} s`);
if (upstreamStats.requestIdsWithRepeatedWrites > 0)
  failures.push(`${upstreamStats.requestIdsWithRepeatedWrites} requests sent their write to the upstream more than once`);
// A request ends within its deadline plus the stated precision (the client's own measure includes the HTTP exchange).
const lateLimitMs = deadlineMs + numbers['deadline-precision-ms'];
if (deadlineMs > 0 && result.latencyMs.max > lateLimitMs) {
  failures.push(
    `${result.over(lateLimitMs)} requests took longer than REQUEST_DEADLINE_MS + precision (${lateLimitMs} ms); the slowest ${fixed(result.latencyMs.max)} ms`,
  );
}
if (chaos && durationSec >= 3 * windowSec && Math.abs(afterWarmup) > numbers['flat-tolerance']) {
  failures.push(`memory is not flat after warm-up: ${fixed(afterWarmup * 100)}% from the second to the last ${windowSec} s`);
}

/** Least-squares slope of RSS over time, in MB per millisecond. */
function slope(samples: { t: number; rssMb: number }[]): number {
  if (samples.length < 3) return Number.NaN;
  const mt = mean(samples.map((x) => x.t));
  const mr = mean(samples.map((x) => x.rssMb));
  const num = samples.reduce((a, x) => a + (x.t - mt) * (x.rssMb - mr), 0);
  const den = samples.reduce((a, x) => a + (x.t - mt) ** 2, 0);
  return num / den;
}

const summary = {
  kind: chaos ? 'chaos' : 'load',
  date: new Date().toISOString(),
  quick,
  settings: {
    connections: numbers.connections,
    durationSec,
    upstreamDelayMs: numbers['delay-ms'],
    faultRate: numbers['fault-rate'],
    faultKinds,
    slowFaultMs: numbers['timeout-ms'] + 500,
    mutationEvery: numbers['mutation-every'],
    deadlinePrecisionMs: numbers['deadline-precision-ms'],
    seed: numbers.seed,
    gatewayEnv: { NODE_ENV: 'production', ...gatewayEnv },
  },
  environment: {
    ...env,
    loadAverageAtEnd: loadAverage(),
    sharedMachine: 'other agents ran their tests on the same 2-core machine during this run',
  },
  requests: result.requests,
  requestsPerSec: result.requestsPerSec,
  bytesPerSec: result.bytesPerSec,
  latencyMs: result.latencyMs,
  statusCodes: result.statusCodes,
  non2xx: result.non2xx,
  bodyless: result.bodyless,
  bodylessSamples: result.bodylessSamples,
  noResponse: { errors: result.errors, timeouts: result.timeouts },
  graphqlErrors: { responsesWithErrors: result.withErrors, responsesWithDataNull: result.dataNull, byCode: result.errorCodes },
  upstream: {
    calls: upstreamStats.calls,
    badAuth: upstreamStats.badAuth,
    faults: upstreamStats.faults,
    byStatus: upstreamStats.byStatus,
    writes: upstreamStats.writes,
    requestIdsWithRepeatedWrites: upstreamStats.requestIdsWithRepeatedWrites,
  },
  lateRequests: deadlineMs > 0 ? result.over(lateLimitMs) : undefined,
  gateway: {
    aliveAfterLoad,
    answersAfterLoad,
    exitAfterSigterm: exit,
    cpuSeconds: gatewayCpuSec,
    cpuMsPerRequest: (gatewayCpuSec * 1000) / Math.max(1, result.requests),
    memory: {
      windowSec,
      firstMeanMb: firstMb,
      lastMeanMb: lastMb,
      growth,
      flat,
      secondMeanMb: mean(secondWindow),
      growthAfterWarmup: afterWarmup,
      slopeAfterFirstWindowMbPerMin: slopeMbPerMin,
      peakRssMb,
      samples: rss.samples,
    },
  },
  failures,
};

mkdirSync(resolve(REPO_ROOT, 'bench/results'), { recursive: true });
const out = resolve(REPO_ROOT, `bench/results/${chaos ? 'chaos' : 'load'}-${stamp}${quick ? '-quick' : ''}.json`);
writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);

const pct = (n: number) => `${((n / Math.max(1, result.requests)) * 100).toFixed(2)}%`;
console.log(
  `\n${table(
    ['metric', 'value'],
    [
      ['requests answered', `${result.requests}`],
      ['throughput', `${fixed(result.requestsPerSec)} req/s, ${fixed(result.bytesPerSec / 1e6, 2)} MB/s`],
      ['latency p50 / p99 / max', `${fixed(result.latencyMs.p50)} / ${fixed(result.latencyMs.p99)} / ${fixed(result.latencyMs.max)} ms`],
      ['non-2xx', `${result.non2xx} ${JSON.stringify(result.statusCodes)}`],
      ['without a GraphQL body', `${result.bodyless}`],
      ['no response (errors, timeouts)', `${result.errors}, ${result.timeouts}`],
      ['with GraphQL errors', `${result.withErrors} (${pct(result.withErrors)}), data null: ${result.dataNull}`],
      ['error codes', JSON.stringify(result.errorCodes)],
      ['gateway CPU', `${fixed(gatewayCpuSec)} s (${fixed((gatewayCpuSec * 1000) / Math.max(1, result.requests), 2)} ms per request)`],
      ['upstream calls / faults', `${upstreamStats.calls} / ${JSON.stringify(upstreamStats.faults)}`],
      ['upstream calls without the key', `${upstreamStats.badAuth}`],
      ['upstream writes / sent twice', `${upstreamStats.writes} / ${upstreamStats.requestIdsWithRepeatedWrites}`],
      ...(deadlineMs > 0 ? [[`ended past ${lateLimitMs} ms (deadline + precision)`, `${result.over(lateLimitMs)}`]] : []),
      ['gateway alive after load', `${aliveAfterLoad}, answers after: ${answersAfterLoad}, exit after SIGTERM: ${JSON.stringify(exit)}`],
      [
        `RSS first / last ${windowSec} s`,
        `${fixed(firstMb)} / ${fixed(lastMb)} MB (${(growth * 100).toFixed(1)}%, ${flat ? 'flat' : 'NOT flat'}), peak ${fixed(peakRssMb)} MB`,
      ],
      [
        `RSS second / last ${windowSec} s`,
        `${fixed(mean(secondWindow))} / ${fixed(lastMb)} MB (${fixed(afterWarmup * 100)}%), slope after the first ${windowSec} s: ${fixed(slopeMbPerMin)} MB/min`,
      ],
    ],
  )}\n`,
);
console.log(`results: ${relative(REPO_ROOT, out)}`);
if (booleans['keep-log'] || failures.length > 0) console.log(`gateway log: ${logFile}`);
else rmSync(logFile, { force: true });
if (failures.length > 0) {
  console.error(`\nFAILED:\n- ${failures.join('\n- ')}\n\ngateway log tail:\n${tail(logFile)}`);
  process.exit(1);
}
console.log(
  chaos
    ? 'OK: no crash, a GraphQL body on every response, every request within its deadline, no write sent twice, flat memory.'
    : 'OK: no crash, every response had a GraphQL body.',
);
process.exit(0);

/** The first record of an upstream list (read before the counters are reset). */
async function firstRecord(listUrl: string): Promise<{ id: string }> {
  const response = await fetch(`${listUrl}?limit=1`, { headers: { authorization: `Bearer ${key}` } });
  const page = (await response.json()) as { results?: { id: string }[] };
  const first = page.results?.[0];
  if (!response.ok || !first) throw new Error(`upstream ${listUrl}: ${response.status} ${JSON.stringify(page)}`);
  return first;
}
