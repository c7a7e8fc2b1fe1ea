import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';

// `npm run reference-api` runs src/reference-api/main.ts; this runs it the same way, on a free port.
let child: ChildProcess | undefined;
afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

/** Resolves with the output so far once `pattern` appears in it. */
function waitForOutput(proc: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in output: ${output}`)), 15_000);
    proc.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (pattern.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    });
    proc.once('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

describe('npm run reference-api', () => {
  it('prints its URL and keys, answers with the printed demo key, and stops on SIGTERM', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', 'src/reference-api/main.ts'], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = await waitForOutput(child, /outsider\s+phx_\S+.*\n/);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    const key = /Authorization: Bearer (phx_\w+)/.exec(output)?.[1];
    expect(url).toBeDefined();
    expect(key).toBeDefined();
    for (const label of ['readOnly', 'organizationRead', 'noScopes', 'outsider']) expect(output).toContain(label);

    const response = await request(`${url}/api/organizations/`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.statusCode).toBe(200);
    expect(((await response.body.json()) as { count: number }).count).toBe(2);

    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
