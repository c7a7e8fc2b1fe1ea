// `npm run bench:instructions`: machine instructions per dashboard, counted by valgrind's cachegrind,
// for the gateway, its execution without Yoga (bench/rest-path.ts --graphql-jit), the rest path
// (bench/rest-path.ts) and the floor. CPU time on this shared machine
// swings 2 × within the hour; over repeated runs the gateway's count stayed within 2.5%, the
// floor's within 0.1% and the rest path's within 6%, so two commits run hours apart can be compared
// (repeat a run before trusting a difference of a few percent). It is not CPU time: what the count
// leaves out (the kernel, memory stalls, V8 heuristics that react to time) is in docs/performance-gap.md.
// Each server runs under `valgrind --tool=cachegrind` (~50 × slower) with start:prod's flags and
// V8's `--single-threaded` (below), serves `--first` dashboards, then `--last`, each count in a fresh
// process, `--connections` at a time; the difference of the two totals over the difference of the
// counts leaves out start-up and warm-up. The gateway's settings come from the environment, as for
// `npm start`. Needs valgrind (`apt-get install valgrind`); not part of `npm test`.
//   npm run bench:instructions                            # all four sides, 1500 then 4500 dashboards: ~15 min
//   npm run bench:instructions -- --sides gateway         # one side: ~4 min
//   LOG_LEVEL=warn npm run bench:instructions -- --sides gateway
//   npm run bench:instructions -- --cache-sim             # also simulated cache misses (slower)
//   npm run bench:instructions -- --query typename        # `{ __typename }`: a request's fixed cost
//   npm run bench:instructions -- --sides gateway --origin https://app.example   # as a browser sends it (CORS)
//   npm run bench:instructions -- --sides gateway --apq   # by its APQ hash alone, registered once first
//   npm run bench:instructions -- --sides gateway --get   # by GET, its parameters in the URL (with --apq: the hash)
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { readFlags } from './lib/cli.ts';
import { buildGateway, compiledScript, freePort, killOnExit, productionNodeArgs, REPO_ROOT, startScript } from './lib/processes.ts';
import { DASHBOARD, graphqlBody } from './lib/queries.ts';
import { writeResult } from './lib/results.ts';
import { fileStamp, table } from './lib/stats.ts';

const SIDES = ['gateway', 'execution', 'rest', 'floor'] as const;
type Side = (typeof SIDES)[number];

const { numbers, booleans, strings } = readFlags(
  {
    // Past the warm-up, as `npm run bench` measures: counted over dashboards 501-1,500 instead, the
    // floor's count was 5% higher and `{ __typename }`'s a third higher (docs/performance-gap.md).
    first: { env: 'BENCH_FIRST', default: 1500, quick: 50 },
    last: { env: 'BENCH_LAST', default: 4500, quick: 150 },
    connections: { env: 'BENCH_CONNECTIONS', default: 10 },
  },
  {},
  ['cache-sim', 'apq', 'get'],
  ['sides', 'query', 'origin'],
);
// `--origin`: each request carries this `Origin`, as a page's request from another origin does.
const originHeader: Record<string, string> = strings.origin ? { origin: strings.origin } : {};
// `--query typename` sends `{ __typename }` instead: a request's fixed cost in the gateway (the floor
// and the rest path answer every request with the dashboard, so they are left out).
const QUERIES = { dashboard: DASHBOARD, typename: '{ __typename }' } as const;
const queryName = (strings.query ?? 'dashboard') as keyof typeof QUERIES;
if (!Object.hasOwn(QUERIES, queryName)) throw new Error(`--query takes ${Object.keys(QUERIES).join(' or ')} (got "${strings.query}").`);
const sides = (strings.sides ?? (queryName === 'dashboard' ? SIDES.join(',') : 'gateway')).split(',') as Side[];
if (queryName !== 'dashboard' && sides.some((side) => side !== 'gateway'))
  throw new Error(`--query ${queryName} measures the gateway only.`);
for (const side of sides) if (!SIDES.includes(side)) throw new Error(`--sides takes ${SIDES.join(', ')} (got "${side}").`);
if (numbers.last <= numbers.first) throw new Error('--last must be larger than --first.');

const key = `bench-${randomUUID()}`;
const stamp = fileStamp();
const body = graphqlBody(QUERIES[queryName]);
// `--apq`: each process is sent the query once with its hash (an automatic persisted query's
// registration, on both counts alike), then only the hash, as Apollo Client's persisted-query link sends it.
const apqExtensions = { persistedQuery: { version: 1, sha256Hash: createHash('sha256').update(QUERIES[queryName]).digest('hex') } };
const registration = JSON.stringify({ query: QUERIES[queryName], extensions: apqExtensions });
const countedBody = booleans.apq ? JSON.stringify({ extensions: apqExtensions }) : body;
if ((booleans.apq || booleans.get) && sides.some((side) => side !== 'gateway'))
  throw new Error('--apq and --get measure the gateway only.');
/** What a GET sends of a JSON body: each parameter in the URL, `variables` and `extensions` as JSON. */
const getPath = (sentBody: string) =>
  `/graphql?${new URLSearchParams(
    Object.entries(JSON.parse(sentBody) as Record<string, unknown>).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  )}`;
buildGateway();
const upstream = await startScript('bench/fake-upstream.ts', ['--key', key]);

/** The command line of one side, listening on `port`. */
function command(side: Side, port: number): { args: string[]; env: Record<string, string> } {
  const log = join(tmpdir(), `bench-instructions-${stamp}-${process.pid}-${side}-${port}.log`);
  if (side === 'gateway')
    return { args: ['dist/main.js'], env: { HOST: '127.0.0.1', PORT: String(port), UPSTREAM_URL: upstream.url, LOG_FILE: log } };
  const script = compiledScript(side === 'floor' ? 'bench/floor.ts' : 'bench/rest-path.ts');
  return {
    args: [
      script,
      '--upstream',
      upstream.url,
      '--port',
      String(port),
      ...(side === 'floor' ? [] : ['--log', log]),
      ...(side === 'execution' ? ['--graphql-jit'] : []),
    ],
    env: {},
  };
}

/** Cachegrind's totals (`Ir`, and with --cache-sim `D1mr` and the rest) for one process serving `dashboards`. */
async function count(side: Side, dashboards: number): Promise<Record<string, number>> {
  const port = await freePort();
  // The pid too: two runs started in the same second (two worktrees compared) must not share a file.
  const out = join(tmpdir(), `bench-instructions-${stamp}-${process.pid}-${side}-${dashboards}.cg`);
  const { args, env } = command(side, port);
  const valgrind = ['--tool=cachegrind', `--cache-sim=${booleans['cache-sim'] ? 'yes' : 'no'}`, `--cachegrind-out-file=${out}`];
  // --single-threaded: V8's helper threads (parallel scavenges, concurrent marking and compiling),
  // which valgrind runs one at a time, made the gateway's count spread 10.6-12.2 million per
  // dashboard over five runs; on the main thread the same work counts the same each run.
  const node = [...productionNodeArgs(), '--single-threaded'];
  const child = spawn('valgrind', [...valgrind, process.execPath, ...node, ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_ENV: 'production', ...env },
  });
  // A failed count throws out of the script: no server under valgrind may outlive it.
  killOnExit(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', resolveExit));
  // Ready when it prints its banner (the gateway) or its URL (the bench servers): polling /health
  // would add a number of requests that depends on how long start-up took.
  await new Promise<void>((resolveReady, reject) => {
    let printed = '';
    child.stdout.on('data', (chunk) => {
      printed += chunk;
      if (printed.includes('ready at') || printed.includes('"url"')) resolveReady();
    });
    void exited.then((code) => reject(new Error(`${side} under valgrind exited (${code}) before it was ready:\n${stderr}`)));
  });
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: numbers.connections });
  const failures: string[] = [];
  const sendOne = async (sentBody: string) => {
    const headers = { authorization: `Bearer ${key}`, ...originHeader };
    const response = await pool.request(
      booleans.get
        ? { path: getPath(sentBody), method: 'GET', headers }
        : { path: '/graphql', method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: sentBody },
    );
    const text = await response.body.text();
    if (response.statusCode !== 200 || text.includes('"errors"')) failures.push(`${response.statusCode} ${text.slice(0, 300)}`);
  };
  if (booleans.apq) await sendOne(registration);
  let sent = 0;
  await Promise.all(
    Array.from({ length: numbers.connections }, async () => {
      while (sent++ < dashboards) await sendOne(countedBody);
    }),
  );
  await pool.close();
  child.kill('SIGTERM');
  await exited;
  if (failures.length) throw new Error(`${side}: ${failures.length} of ${dashboards} requests failed, e.g. ${failures[0]}`);
  const text = readFileSync(out, 'utf8');
  rmSync(out);
  const events = /^events: (.*)$/m.exec(text)?.[1]?.trim().split(/\s+/) ?? [];
  const totals = /^summary: (.*)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number) ?? [];
  if (!events.length || events.length !== totals.length) throw new Error(`${side}: cachegrind wrote no summary`);
  return Object.fromEntries(events.map((event, i) => [event, totals[i] ?? 0]));
}

// Valgrind runs a process's threads one at a time, so two counts run side by side, one per core.
const jobs = sides.flatMap((side) => [numbers.first, numbers.last].map((dashboards) => ({ side, dashboards })));
const totals = new Map<string, Record<string, number>>();
const queue = [...jobs];
await Promise.all(
  [0, 1].map(async () => {
    for (let job = queue.shift(); job; job = queue.shift())
      totals.set(`${job.side} ${job.dashboards}`, await count(job.side, job.dashboards));
  }),
);
await upstream.stop();

const perDashboard = Object.fromEntries(
  sides.map((side) => {
    const first = totals.get(`${side} ${numbers.first}`) ?? {};
    const last = totals.get(`${side} ${numbers.last}`) ?? {};
    return [
      side,
      Object.fromEntries(
        Object.keys(last).map((event) => [event, ((last[event] ?? 0) - (first[event] ?? 0)) / (numbers.last - numbers.first)]),
      ),
    ];
  }),
) as Record<Side, Record<string, number>>;
const floorIr = perDashboard.floor?.Ir;
const events = Object.keys(perDashboard[sides[0] as Side] ?? {});
console.log(
  `\ninstructions per request of ${queryName} (requests ${numbers.first + 1}-${numbers.last}, ${numbers.connections} at a time, upstream 0 ms)\n`,
);
console.log(
  table(
    ['side', ...events.map((event) => (event === 'Ir' ? 'Ir, millions' : event)), ...(floorIr ? ['Ir ÷ floor'] : [])],
    sides.map((side) => [
      side,
      ...events.map((event) =>
        event === 'Ir' ? ((perDashboard[side][event] ?? 0) / 1e6).toFixed(2) : (perDashboard[side][event] ?? 0).toFixed(0),
      ),
      ...(floorIr ? [((perDashboard[side].Ir ?? 0) / floorIr).toFixed(3)] : []),
    ]),
  ),
);
writeResult(
  'instructions',
  stamp,
  { ...numbers, sides, query: queryName, cacheSim: booleans['cache-sim'], origin: strings.origin, apq: booleans.apq, get: booleans.get },
  { totals: Object.fromEntries(totals), perDashboard },
);
process.exit(0);
