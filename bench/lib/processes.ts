// Child processes of a benchmark: the upstream (bench/upstream.ts), the floor and the gateway each run in their own
// Node process (so each has its own event loop and its own RSS). The upstream runs with tsx; the
// gateway (dist/) and the floor (dist-bench/) run compiled, as production would run them.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { constants } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The repository: the nearest folder up with a package.json (from bench/lib, or from dist-bench/bench/lib when compiled). */
export const REPO_ROOT = repositoryAbove(dirname(fileURLToPath(import.meta.url)));

function repositoryAbove(dir: string): string {
  if (existsSync(join(dir, 'package.json'))) return dir;
  if (dirname(dir) === dir) throw new Error('bench/lib/processes.ts: no package.json above it');
  return repositoryAbove(dirname(dir));
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Child {
  pid: number;
  url: string;
  process: ChildProcess;
  /** Set once the process has exited, whatever the reason. */
  exit: Exit | undefined;
  exited: Promise<Exit>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with how it exited. */
  stop(graceMs?: number): Promise<Exit>;
}

/** Children still running (see killOnExit). */
const running = new Set<ChildProcess>();
let exitHooked = false;

/**
 * Kills `child` if the bench exits before it does (an error, Ctrl-C, its output piped into `head`):
 * none may outlive the bench and load the next run's machine. The exit and signal handlers go in
 * with the first child, so a module that only imports this file (a test) keeps its own.
 */
function killOnExit(child: ChildProcess): void {
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      for (const stillRunning of running) stillRunning.kill('SIGKILL');
    });
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
      process.once(signal, () => process.exit(128 + constants.signals[signal]));
  }
  running.add(child);
  child.once('exit', () => running.delete(child));
}

function track(child: ChildProcess, url: string): Child {
  killOnExit(child);
  const handle: Child = {
    pid: child.pid as number,
    url,
    process: child,
    exit: undefined,
    exited: new Promise<Exit>((resolve) => {
      child.once('exit', (code, signal) => {
        handle.exit = { code, signal };
        resolve(handle.exit);
      });
    }),
    async stop(graceMs = 10_000) {
      if (handle.exit) return handle.exit;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const exit = await handle.exited;
      clearTimeout(timer);
      return exit;
    },
  };
  return handle;
}

/**
 * Runs a bench script (upstream.ts) with tsx; it prints `{"url": ...}` on stdout once ready.
 * `nodeArgs`: Node/V8 flags before the script.
 * `onOutput`: every other stdout line, e.g. V8's `--trace-gc-nvp` lines, which may come before the URL.
 */
export function startScript(script: string, args: string[], nodeArgs: string[] = [], onOutput?: (line: string) => void): Promise<Child> {
  return startNode(script, [...nodeArgs, '--import', 'tsx', resolve(REPO_ROOT, script), ...args], { onOutput });
}

interface NodeProcessOptions {
  /** Every stdout line but the URL's, e.g. V8's `--trace-gc-nvp` lines, which may come before it. */
  onOutput?: (line: string) => void;
  /** The process's working directory, where V8 writes files such as `--perf-prof`'s. @default the repository */
  cwd?: string;
}

/**
 * Runs one of the bench's own servers (bench/floor.ts), which print their URL as
 * `startScript`'s do, compiled to dist-bench/ and without tsx. Under tsx the floor had ~30 MB more
 * RSS at rest, up to ~20 MB more at peak (the loader's own thread and heap), and used 2-4% more CPU
 * per dashboard than compiled (2026-11-28, alternating rounds at 10 and 50 clients): costs the
 * gateway, run from dist/, does not have. `nodeArgs`: the gateway's production flags, for the floor.
 */
function startCompiledScript(script: string, args: string[], nodeArgs: string[] = [], options: NodeProcessOptions = {}): Promise<Child> {
  return startNode(script, [...nodeArgs, compiledScript(script), ...args], options);
}

/**
 * The floor (bench/floor.ts) in its own process, under start:prod's flags as the gateway runs;
 * `nodeArgs` come after them (a profiler, a preload).
 */
export function startFloorProcess(upstreamUrl: string, nodeArgs: string[] = [], options: NodeProcessOptions = {}): Promise<Child> {
  return startCompiledScript('bench/floor.ts', ['--upstream', upstreamUrl], [...productionNodeArgs(), ...nodeArgs], options);
}

/** The compiled file of a bench server (built once per bench run by `tsc -p tsconfig.bench.json`). */
function compiledScript(script: string): string {
  if (!benchServersBuilt) {
    compile('tsconfig.bench.json');
    benchServersBuilt = true;
  }
  return resolve(REPO_ROOT, 'dist-bench', script.replace(/\.ts$/, '.js'));
}

let benchServersBuilt = false;

async function startNode(script: string, argv: string[], { onOutput, cwd = REPO_ROOT }: NodeProcessOptions): Promise<Child> {
  const child = spawn(process.execPath, argv, {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready`)));
    const onLine = (line: string) => {
      if (onOutput && !line.startsWith('{')) return onOutput(line);
      lines.off('line', onLine);
      lines.on('line', (next) => onOutput?.(next)); // keep draining
      try {
        resolveUrl((JSON.parse(line) as { url: string }).url);
      } catch {
        reject(new Error(`${script} printed ${line}`));
      }
    };
    lines.on('line', onLine);
  });
  return track(child, url);
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', resolveListen));
  const { port } = server.address() as { port: number };
  await new Promise((resolveClose) => server.close(resolveClose));
  return port;
}

interface GatewayProcessOptions {
  upstreamUrl: string;
  /** Extra environment (settings of src/config.ts), on top of the bench's own environment. */
  env?: Record<string, string>;
  /** Node flags before the entry, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  /** Where the gateway's stdout and stderr go (its logs). */
  logFile: string;
  /** Its working directory, where V8 writes files such as `--perf-prof`'s. @default the repository */
  cwd?: string;
}

let built = false;

/** `npm run build` once per bench run: the gateway runs compiled, as in production. */
function buildGateway(): void {
  if (built) return;
  compile('tsconfig.build.json');
  built = true;
}

/** `tsc -p <project>` in the repository. */
function compile(project: string): void {
  execFileSync(process.execPath, [resolve(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], {
    cwd: REPO_ROOT,
    stdio: 'inherit',
  });
}

/** The Node flags of `npm run start:prod` (`node <flags> dist/main.js`): the bench runs what production runs. */
export function productionNodeArgs(): string[] {
  const scripts = (JSON.parse(readFileSync(resolve(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const flags = /^node\s+(.*?)\s*dist\/main\.js$/.exec(scripts['start:prod'] ?? '')?.[1];
  if (flags === undefined) throw new Error('package.json: start:prod is not `node [flags] dist/main.js`');
  return flags.split(/\s+/).filter(Boolean);
}

/**
 * The gateway as production runs it: `npm run build`, then `NODE_ENV=production node <the flags of start:prod> dist/main.js`
 * (no tsx loader) with UPSTREAM_URL set. Ready when `/health` answers 200.
 */
export async function startGateway(options: GatewayProcessOptions): Promise<Child> {
  buildGateway();
  const port = await freePort();
  const log = openSync(options.logFile, 'a');
  // BENCH_GATEWAY_NODE_ARGS: V8/Node flags for the gateway alone, after production's (a later flag
  // wins), e.g. "--max-semi-space-size=24" to try a larger young generation than start:prod's 16 MiB.
  const extraArgs = process.env.BENCH_GATEWAY_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  const child = spawn(
    process.execPath,
    [...productionNodeArgs(), ...extraArgs, ...(options.nodeArgs ?? []), join(REPO_ROOT, 'dist/main.js')],
    {
      cwd: options.cwd ?? REPO_ROOT,
      stdio: ['ignore', log, log],
      env: {
        ...process.env,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(port),
        UPSTREAM_URL: options.upstreamUrl,
        ...options.env,
      },
    },
  );
  closeSync(log);
  const handle = track(child, `http://127.0.0.1:${port}/graphql`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (handle.exit) throw new Error(`the gateway exited (${JSON.stringify(handle.exit)}) before it was ready:\n${tail(options.logFile)}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      await response.arrayBuffer();
      if (response.ok) return handle;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await handle.stop(1000);
      throw new Error(`the gateway was not ready within 60 s:\n${tail(options.logFile)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

interface RssSample {
  /** Milliseconds since the sampler started. */
  t: number;
  rssMb: number;
}

/** Samples a process's resident set size from /proc (Linux) every `intervalMs`. */
export class RssSampler {
  readonly samples: RssSample[] = [];
  private readonly startedAt = Date.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pid: number,
    intervalMs = 1000,
  ) {
    void this.sample();
    this.timer = setInterval(() => void this.sample(), intervalMs);
  }

  now(): number {
    return Date.now() - this.startedAt;
  }

  async sample(): Promise<void> {
    const kb = await statusField(this.pid, 'VmRSS');
    if (kb !== undefined) this.samples.push({ t: this.now(), rssMb: kb / 1024 });
  }

  /** The kernel's own high-water mark of the process's RSS (VmHWM), in MB. */
  async peakSinceStartMb(): Promise<number | undefined> {
    const kb = await statusField(this.pid, 'VmHWM');
    return kb === undefined ? undefined : kb / 1024;
  }

  between(from: number, to: number): number[] {
    return this.samples.filter((s) => s.t >= from && s.t <= to).map((s) => s.rssMb);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

async function statusField(pid: number, field: string): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined; // gone, or not Linux
  }
}

let clockTicks: number | undefined;

/** CPU time (user + system) a process has used so far, in seconds, from /proc/PID/stat. */
export async function cpuSeconds(pid: number): Promise<number | undefined> {
  try {
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / clockTicks;
  } catch {
    return undefined;
  }
}
