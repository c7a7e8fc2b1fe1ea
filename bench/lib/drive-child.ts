// autocannon in a child process (bench/lib/drive-cli.ts), for the benchmarks that measure their own
// process (its heap, its CPU time) while the gateway in it is driven.
import { execFile } from 'node:child_process';
import { REPO_ROOT } from './processes.ts';
import { DASHBOARD } from './queries.ts';

interface DriveSummary {
  requests: number;
  requestsPerSec: number;
  non2xx: number;
  errors: number;
  bodyless: number;
  withErrors: number;
}

/** Drives `query` (the dashboard by default) at `url`; rejects unless every request was answered in full. */
export function driveInChild(options: {
  url: string;
  key: string;
  seconds: number;
  connections: number;
  query?: string;
}): Promise<DriveSummary> {
  const { url, key, seconds, connections, query = DASHBOARD } = options;
  return new Promise<DriveSummary>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bench/lib/drive-cli.ts', url, key, String(seconds), String(connections), query],
      { cwd: REPO_ROOT },
      (error, stdout) => {
        if (error) return reject(error);
        const summary = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as DriveSummary;
        if (summary.non2xx || summary.errors || summary.bodyless || summary.withErrors)
          return reject(new Error(`not every request was answered in full: ${JSON.stringify(summary)}`));
        resolve(summary);
      },
    ),
  );
}
