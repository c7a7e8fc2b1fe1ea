// What a result depends on: versions, the commit and whether the tree was dirty, the machine and its load.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { resolve } from 'node:path';
import { REPO_ROOT } from './processes.ts';

function version(pkg: string): string {
  try {
    return (JSON.parse(readFileSync(resolve(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export function environment() {
  const dirty = git(['status', '--porcelain', '--', 'src', 'package.json']);
  return {
    node: process.version,
    graphql: version('graphql'),
    graphqlYoga: version('graphql-yoga'),
    undici: version('undici'),
    pothos: version('@pothos/core'),
    autocannon: version('autocannon'),
    commit: git(['rev-parse', '--short', 'HEAD']),
    /** Uncommitted changes under src/ at the time of the run (the gateway runs from the working tree). */
    dirtySrc: dirty ? dirty.split('\n').map((l) => l.trim()) : [],
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    gatewayNodeArgs: process.env.BENCH_GATEWAY_NODE_ARGS ?? '',
    loadAverageAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

export const loadAverage = () => loadavg().map((l) => Math.round(l * 100) / 100);
