// `npm run bench:native`: where the gateway's and the floor's CPU go per dashboard, sampled by Linux
// `perf` in the machine code itself. The V8 CPU profiler (`bench:profile`) names JavaScript
// functions but lumps V8's own work (builtins, JSON.parse, the string table, the collector) into
// whichever function called it, or into "(program)", and overstates small costs on this machine;
// perf names that work too. V8's generated code is named through its jitdump (`--perf-prof`, then
// `perf inject --jit`), which records every piece of code as it is made, moved or reused, so a long
// run's samples land on the right function (a perf map written once does not: V8 moves code). That
// code is sorted by where its source comes from, as bench:profile sorts it: a package, a folder of
// the compiled gateway (dist/rest is src/rest), Node's own JavaScript, graphql-jit's compiled
// operations; compiled regular expressions by pattern. Each side runs
// under start:prod's flags over one fake upstream, is warmed up (long: V8 still compiles after
// 10 s, docs/performance-gap.md), then perf samples it while the same load goes on. The main thread
// and V8's helper threads (parallel collection, concurrent compiling) are reported apart. Needs
// `perf` (Debian: linux-perf) allowed to sample the bench's own processes; not part of `npm test`.
//   npm run bench:native                                  # 10 clients, 0 ms, 20 s warm-up, 10 s sampled
//   npm run bench:native -- --connections 50 --delay-ms 5
//   npm run bench:native -- --against execution           # the gateway beside its execution without Yoga
// `--against execution` samples bench/rest-path.ts --graphql-jit (the gateway's execution without
// Yoga's pipeline, as bench:bound runs it) in the floor's place: what the gateway's request path
// around the execution costs, category by category.
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFlags } from './lib/cli.ts';
import { drive } from './lib/drive.ts';
import { packageOf } from './lib/frames.ts';
import { buildGateway, productionNodeArgs, startCompiledScript, startFloorProcess, startGateway, startScript } from './lib/processes.ts';
import { DASHBOARD, graphqlBody } from './lib/queries.ts';
import { writeResult } from './lib/results.ts';
import { fileStamp, fixed, table } from './lib/stats.ts';

const { quick, numbers, strings } = readFlags(
  {
    connections: { env: 'BENCH_CONNECTIONS', default: 10 },
    'delay-ms': { env: 'BENCH_DELAY_MS', default: 0 },
    'warmup-sec': { env: 'BENCH_WARMUP_SEC', default: 20, quick: 3 },
    duration: { env: 'BENCH_DURATION', default: 10, quick: 3 },
    hz: { env: 'BENCH_PERF_HZ', default: 1999 },
  },
  {},
  [],
  ['against'],
);
const AGAINST = ['floor', 'execution'] as const;
const against = (strings.against ?? 'floor') as (typeof AGAINST)[number];
if (!AGAINST.includes(against)) throw new Error(`--against takes ${AGAINST.join(' or ')} (got "${strings.against}").`);

if (spawnSync('perf', ['--version']).status !== 0) {
  console.error('bench:native needs Linux perf on the PATH (Debian: apt-get install linux-perf).');
  process.exit(1);
}

type Side = 'gateway' | (typeof AGAINST)[number];
/** Microseconds of CPU per dashboard, by category. */
type Breakdown = Record<string, number>;

interface Sampled {
  dashboardsPerSec: number;
  mainThread: Breakdown;
  helperThreadsUs: number;
}

/** What a sample of V8, Node or the kernel was doing, from its binary and symbol. */
function categoryOf(dso: string, symbol: string): string {
  if (dso.includes('kernel')) return 'kernel';
  if (dso.startsWith('lib') || dso === '[vdso]') return 'libc and other libraries';
  if (dso.startsWith('jitted-')) return generatedCodeCategory(symbol);
  if (dso !== 'node') return 'JavaScript, not named (no jitdump entry)';
  if (/JsonParse/.test(symbol)) return 'JSON.parse';
  if (/JsonStringifier/.test(symbol)) return 'JSON.stringify';
  if (/StringTable|RawHash|InternalizeString/.test(symbol)) return 'string table (internalising, hashing)';
  if (/Scaveng|MarkCompact|Marking|Sweeper|Evacuat|Heap::|RecordWrite|RememberedSet|SlotSet/.test(symbol))
    return 'garbage collection, write barriers';
  if (symbol.startsWith('Builtins_')) return builtinCategory(symbol.slice('Builtins_'.length));
  if (/uv_|node::/.test(symbol)) return 'Node and libuv (C++)';
  return 'V8 and Node, other (C++)';
}

/** A V8 builtin (machine code shipped in the node binary), by what it serves. */
function builtinCategory(name: string): string {
  if (/Promise|Microtask|Await|Async/.test(name)) return 'builtins: promises, microtasks';
  if (/CompileLazy|Call|Construct|Apply|Baseline|JSEntry|CEntry/.test(name)) return 'builtins: calls, closures first called';
  if (/IC|GetProperty|SetProperty|KeyedLoad|KeyedStore|HasProperty/.test(name)) return 'builtins: property access';
  if (/RegExp/.test(name)) return 'builtins: regular expressions';
  return 'builtins: other';
}

/**
 * Code V8 generated, by the name its jitdump gave it: `JS:*name /path/file.js:line:col` for a
 * function (`*` optimised, `~` not), `Builtin:Name`, `RegExp:pattern`, wasm functions.
 */
function generatedCodeCategory(symbol: string): string {
  if (symbol.startsWith('Builtin:')) return builtinCategory(symbol.slice('Builtin:'.length));
  if (symbol.startsWith('RegExp:')) return `regular expression ${symbol.slice('RegExp:'.length, 'RegExp:'.length + 40)}`;
  if (/wasm/.test(symbol)) return "JavaScript: wasm (undici's HTTP parser)";
  const url = /\s((?:file:\/\/)?\/\S+|node:\S+)/.exec(symbol)?.[1]?.replace(/:\d+:\d+$/, '');
  // graphql-jit compiles each operation with `new Function`: its code has no file.
  if (!url) return "JavaScript: graphql-jit's compiled operations, other code without a file";
  // Named as bench:profile names a frame's source: a package, Node's core, the repository's top two folders (dist/rest).
  return `JavaScript: ${packageOf({ url, functionName: '', lineNumber: 0 })}`;
}

/** `perf report` of one recording: samples by thread, then by category on the main thread. */
function breakdownOf(file: string, pid: number, dashboards: number): Omit<Sampled, 'dashboardsPerSec'> {
  const report = spawnSync(
    'perf',
    [...perfCache, 'report', '-i', file, '--no-children', '--sort', 'pid,dso,sym', '-n', '--stdio', '-g', 'none', '-t', '|'],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  if (report.status !== 0) throw new Error(`perf report failed: ${report.stderr}`);
  const usPerSample = 1e6 / numbers.hz / dashboards;
  const mainThread: Breakdown = {};
  let helperThreadsUs = 0;
  for (const line of report.stdout.split('\n')) {
    const [, samples, thread, dso, symbol] = line.split('|').map((field) => field.trim());
    if (!samples || !/^\d+$/.test(samples) || !thread || dso === undefined || symbol === undefined) continue;
    const us = Number(samples) * usPerSample;
    if (Number.parseInt(thread, 10) !== pid) {
      helperThreadsUs += us;
      continue;
    }
    const category = categoryOf(dso, symbol.replace(/^\[.\]\s*/, ''));
    mainThread[category] = (mainThread[category] ?? 0) + us;
  }
  return { mainThread, helperThreadsUs };
}

const key = `bench-${randomUUID()}`;
if (against === 'execution') buildGateway(); // bench/rest-path.ts imports the compiled gateway
const workDir = mkdtempSync(join(tmpdir(), 'bench-native-'));
// perf's build-id cache, which `perf inject` fills with every piece of generated code (hundreds of
// MB): kept in the work folder, removed at the end, rather than in ~/.debug.
const perfCache = ['--buildid-dir', join(workDir, 'perf-buildid-cache')];
const upstream = await startScript('bench/fake-upstream.ts', ['--key', key, '--delay-ms', String(numbers['delay-ms'])]);
const body = graphqlBody(DASHBOARD);

async function sample(side: Side): Promise<Sampled> {
  // Each side runs in a folder of its own: V8 writes its jitdump (and perf inject the code it names)
  // into the working directory.
  const cwd = join(workDir, side);
  mkdirSync(cwd);
  const jitdump = ['--perf-prof'];
  const server =
    side === 'gateway'
      ? await startGateway({ upstreamUrl: upstream.url, logFile: join(workDir, 'gateway.log'), nodeArgs: jitdump, cwd })
      : side === 'execution'
        ? await startCompiledScript(
            'bench/rest-path.ts',
            ['--upstream', upstream.url, '--log', join(workDir, 'execution.log'), '--graphql-jit'],
            [...productionNodeArgs(), ...jitdump],
            { cwd },
          )
        : await startFloorProcess(upstream.url, jitdump, { cwd });
  const load = { url: server.url, connections: numbers.connections, key, body };
  console.log(
    `${side}: ${numbers['warmup-sec']} s warm-up, then ${numbers.duration} s sampled (${numbers.connections} clients, ${numbers['delay-ms']} ms upstream)`,
  );
  await drive({ ...load, durationSec: numbers['warmup-sec'] });
  const file = join(cwd, 'perf.data');
  // `-k 1`: the monotonic clock, which the jitdump's records carry.
  const perf = spawn('perf', [...perfCache, 'record', '-k', '1', '-F', String(numbers.hz), '-o', file, '-p', String(server.pid)], {
    stdio: 'ignore',
  });
  const perfExited = new Promise((resolve) => perf.once('exit', resolve));
  const sampled = await drive({ ...load, durationSec: numbers.duration });
  perf.kill('SIGINT');
  await perfExited;
  await server.stop(30_000);
  const named = `${file}.jit`;
  const inject = spawnSync('perf', [...perfCache, 'inject', '--jit', '-i', file, '-o', named], { encoding: 'utf8' });
  if (inject.status !== 0) throw new Error(`perf inject failed: ${inject.stderr}`);
  return { dashboardsPerSec: sampled.requestsPerSec, ...breakdownOf(named, server.pid, sampled.requests) };
}

// The work folder holds hundreds of MB of perf's data: removed whether the run succeeds or not.
let gateway: Sampled;
let other: Sampled;
try {
  gateway = await sample('gateway');
  other = await sample(against);
} finally {
  await upstream.stop();
  rmSync(workDir, { recursive: true, force: true });
}

const total = (breakdown: Breakdown) => Object.values(breakdown).reduce((sum, us) => sum + us, 0);
const categories = [...new Set([...Object.keys(gateway.mainThread), ...Object.keys(other.mainThread)])];
const usOf = (breakdown: Breakdown, category: string) => breakdown[category] ?? 0;
const gapOf = (category: string) => usOf(gateway.mainThread, category) - usOf(other.mainThread, category);
categories.sort((a, b) => gapOf(b) - gapOf(a));
/** Categories this small on both sides and in their difference are summed into one row (the result file keeps each). */
const SMALL_US = 3;
const isSmall = (category: string) =>
  Math.max(usOf(gateway.mainThread, category), usOf(other.mainThread, category), Math.abs(gapOf(category))) < SMALL_US;
const small = categories.filter(isSmall);
const sumOf = (breakdown: Breakdown) => small.reduce((sum, category) => sum + usOf(breakdown, category), 0);
const row = (label: string, g: number, f: number) => [label, fixed(g, 1), fixed(f, 1), fixed(g - f, 1)];
console.log(
  `\nCPU per dashboard, µs (gateway ${fixed(gateway.dashboardsPerSec)} dashboards/s, ${against} ${fixed(other.dashboardsPerSec)}):\n`,
);
console.log(
  table(
    ['main thread', 'gateway', against, `gateway − ${against}`],
    [
      ...categories
        .filter((category) => !isSmall(category))
        .map((category) => row(category, usOf(gateway.mainThread, category), usOf(other.mainThread, category))),
      row(`${small.length} more, each under ${SMALL_US} µs`, sumOf(gateway.mainThread), sumOf(other.mainThread)),
      row('main thread, all', total(gateway.mainThread), total(other.mainThread)),
      row("V8's helper threads (collection, compiling)", gateway.helperThreadsUs, other.helperThreadsUs),
    ],
  ),
);
writeResult('native', `${fileStamp()}${quick ? '-quick' : ''}`, { ...numbers, against }, { gateway, [against]: other });
