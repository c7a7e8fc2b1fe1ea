// vitest globalSetup: every gateway the suite builds (and every `src/main.ts` child process it
// starts) logs to one file through LOG_FILE; after the run, that file must hold request lines with
// request ids and no key: no reference API demo key, no `phx_` token, no `Bearer `. The file is
// kept under test-artifacts/ when the check fails and removed when it passes.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { TestProject } from 'vitest/node';
import { demoKeys } from '../../src/reference-api/demo-users.ts';

const root = new URL('../../', import.meta.url);
/** Specs that run GraphQL requests through gateways logging with the default (file) logger. */
const LOGGING_SPECS = /^test\/gateway\/|^test\/ops\/(audits|shutdown)\.spec\.ts$/;

export default function setup(project: TestProject): () => void {
  const directory = new URL('test-artifacts/logs/', root);
  mkdirSync(directory, { recursive: true });
  const file = new URL(`gateway-${process.pid}.ndjson`, directory).pathname;
  writeFileSync(file, '');
  process.env.LOG_FILE = file; // inherited by the test workers and by the processes they spawn
  // Request lines are `info`: a quieter level would leave nothing to check.
  if (!['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '')) process.env.LOG_LEVEL = 'info';

  return () => {
    const ranLoggingSpecs = project.vitest.state.getFiles().some((task) => LOGGING_SPECS.test(relative(root.pathname, task.filepath)));
    const problems = checkLog(readFileSync(file, 'utf8'), ranLoggingSpecs);
    if (problems.length === 0) {
      rmSync(file, { force: true });
      return;
    }
    process.exitCode = 1; // vitest only prints a teardown error; this makes `vitest run` fail
    throw new Error(`The gateway log of this run (${relative(root.pathname, file)}) fails the key check:\n- ${problems.join('\n- ')}`);
  };
}

/** What is wrong with a log: the keys it contains, or that it cannot show anything. */
export function checkLog(text: string, expectRequestLines: boolean): string[] {
  const problems: string[] = [];
  const lines = text.split('\n').filter(Boolean);
  const requestLines = lines.filter((line) => /"msg":"graphql request"/.test(line) && /"requestId":"[^"]+"/.test(line));
  if (expectRequestLines && requestLines.length === 0) {
    problems.push(`no request line with a request id among ${lines.length} lines, so the check would pass vacuously`);
  }
  for (const { key, label } of demoKeys()) {
    if (text.includes(key)) problems.push(`the reference API's ${label} key appears`);
  }
  for (const [name, pattern] of [
    ['a phx_ token', /phx_/],
    ['a bearer credential', /Bearer /],
  ] as const) {
    const line = lines.findIndex((entry) => pattern.test(entry));
    if (line !== -1) problems.push(`${name} appears (line ${line + 1})`);
  }
  return problems;
}
