// `npm run bench:bound`: how far any way of executing the dashboard could take the gateway. Five
// servers over one fake upstream, each in its own process under `npm run start:prod`'s flags, driven
// by autocannon in alternating rounds: the gateway; the gateway with every request through Yoga's
// pipeline (FAST_PATH_MAX_QUERIES=0: no fast path for known queries); the gateway's execution without Yoga
// (bench/rest-path.ts --graphql-jit: its context, loaders and REST client under graphql-jit's
// compiled operation, over a plain HTTP server); the same gateway without its GraphQL layer at all
// (bench/rest-path.ts: its context, loaders, REST client, transport, circuit breakers, metrics and
// log line, with the answer assembled by the floor's own code); and the floor (bench/floor.ts). The
// rest path's dashboards/s over the floor's is the most a faster GraphQL execution (a compiled plan
// for persisted operations, a leaner Yoga) could reach without also dropping what the gateway does
// per call; the execution path's, the most a request path around Yoga's pipeline could.
//   npm run bench:bound                                   # 10 clients, 0 ms upstream, 6 rounds × 5 s per side
//   npm run bench:bound -- --connections 50 --delay-ms 5 --rounds 8
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { readFlags } from './lib/cli.ts';
import { drive, postOnce } from './lib/drive.ts';
import {
  buildGateway,
  type Child,
  cpuSeconds,
  productionNodeArgs,
  startCompiledScript,
  startFloorProcess,
  startGateway,
  startScript,
} from './lib/processes.ts';
import { DASHBOARD, graphqlBody } from './lib/queries.ts';
import { writeResult } from './lib/results.ts';
import { fileStamp, fixed, median, spread, table } from './lib/stats.ts';

const { numbers } = readFlags({
  connections: { env: 'BENCH_CONNECTIONS', default: 10 },
  'delay-ms': { env: 'BENCH_DELAY_MS', default: 0 },
  rounds: { env: 'BENCH_ROUNDS', default: 6, quick: 1 },
  'round-sec': { env: 'BENCH_ROUND_SEC', default: 5, quick: 2 },
  'warmup-sec': { env: 'BENCH_WARMUP_SEC', default: 3, quick: 1 },
});

const key = `bench-${randomUUID()}`;
const stamp = fileStamp();
const body = graphqlBody(DASHBOARD);
buildGateway(); // the rest and execution paths import the compiled gateway too
const upstream = await startScript('bench/fake-upstream.ts', ['--key', key, '--delay-ms', String(numbers['delay-ms'])]);
/** bench/rest-path.ts, logging to a file named after `side`; `modeArgs` picks its mode. */
const startRestPath = (side: string, modeArgs: string[] = []) =>
  startCompiledScript(
    'bench/rest-path.ts',
    ['--upstream', upstream.url, '--log', join(tmpdir(), `bench-bound-${side}-${stamp}.log`), ...modeArgs],
    productionNodeArgs(),
  );
const sides = {
  gateway: await startGateway({ upstreamUrl: upstream.url, logFile: join(tmpdir(), `bench-bound-gateway-${stamp}.log`) }),
  'pipeline only': await startGateway({
    upstreamUrl: upstream.url,
    logFile: join(tmpdir(), `bench-bound-pipeline-${stamp}.log`),
    env: { FAST_PATH_MAX_QUERIES: '0' },
  }),
  'execution path': await startRestPath('execution-path', ['--graphql-jit']),
  'rest path': await startRestPath('rest-path'),
  floor: await startFloorProcess(upstream.url),
} satisfies Record<string, Child>;
type Side = keyof typeof sides;
const names = Object.keys(sides) as Side[];

// All of them must answer the same JSON, or the comparison is of different work.
const floorAnswer = await postOnce(sides.floor.url, key, body);
for (const name of names) {
  const answer = await postOnce(sides[name].url, key, body);
  if (answer.status !== 200 || !isDeepStrictEqual(answer.json, floorAnswer.json)) {
    throw new Error(`${name} does not answer the floor's dashboard: ${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`);
  }
}

console.log(
  `${numbers.connections} clients, ${numbers['delay-ms']} ms upstream, ${numbers.rounds} rounds × ${numbers['round-sec']} s per side`,
);
for (const name of names)
  await drive({ url: sides[name].url, connections: numbers.connections, durationSec: numbers['warmup-sec'], key, body });
const perRound = Object.fromEntries(
  names.map((name) => [name, { qps: [] as number[], cpuMs: [] as number[], p99Ms: [] as number[] }]),
) as Record<Side, { qps: number[]; cpuMs: number[]; p99Ms: number[] }>;
for (let round = 0; round < numbers.rounds; round++) {
  // Rotating order, so that a slow stretch of a shared machine does not always fall on one side.
  for (const name of [...names.slice(round % names.length), ...names.slice(0, round % names.length)]) {
    const before = await cpuSeconds(sides[name].pid);
    const load = await drive({
      url: sides[name].url,
      connections: numbers.connections,
      durationSec: numbers['round-sec'],
      key,
      body,
      checkBodies: true,
    });
    const after = await cpuSeconds(sides[name].pid);
    if (load.non2xx + load.errors + load.timeouts + load.bodyless + load.withErrors > 0)
      throw new Error(`${name}: not every answer was a full dashboard`);
    perRound[name].qps.push(load.completePerSec);
    perRound[name].p99Ms.push(load.openConnectionLatencyMs.p99);
    perRound[name].cpuMs.push((((after ?? Number.NaN) - (before ?? Number.NaN)) * 1000) / Math.max(1, load.requests));
  }
  process.stdout.write('.');
}
for (const name of names) await sides[name].stop();
await upstream.stop();

// Ratios to the floor paired per round (the rounds of one rotation ran minutes apart at most).
const toFloor = (name: Side, pick: 'qps' | 'cpuMs' | 'p99Ms') =>
  perRound[name][pick].map((value, i) => value / (perRound.floor[pick][i] as number));
console.log(
  `\n\n${table(
    ['side', 'dashboards/s', '÷ floor', 'CPU ms per dashboard', '÷ floor', 'p99 ms, open connections', '÷ floor'],
    names.map((name) => [
      name,
      spread(perRound[name].qps, 0),
      spread(toFloor(name, 'qps')),
      fixed(median(perRound[name].cpuMs), 2),
      spread(toFloor(name, 'cpuMs')),
      fixed(median(perRound[name].p99Ms), 1),
      spread(toFloor(name, 'p99Ms')),
    ]),
  )}`,
);
console.log('(median (min–max) over rounds; ratios paired per round; CPU: user+system time of that process per answered dashboard)');

writeResult('bound', stamp, numbers, { perRound });
process.exit(0);
