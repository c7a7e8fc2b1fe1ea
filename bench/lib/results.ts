// Where a benchmark keeps what it measured: bench/results/<kind>-<stamp>.json, with when it ran, its
// settings and the machine and commit it ran on (environment.ts), so a figure in the docs can be traced.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { environment } from './environment.ts';
import { REPO_ROOT } from './processes.ts';

const RESULTS_DIR = join(REPO_ROOT, 'bench', 'results');

/** Writes `{ kind, date, settings, environment, ...measured }` and prints its path; returns the file. */
export function writeResult(kind: string, stamp: string, settings: unknown, measured: Record<string, unknown>): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, `${kind}-${stamp}.json`);
  const record = { kind, date: new Date().toISOString(), settings, environment: environment(), ...measured };
  writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`\nresults: ${relative(REPO_ROOT, file)}`);
  return file;
}
