// The gateway's entry as a child process, started the way `npm start` (or `npm run start:prod`)
// does, with its output collected until it is ready (the whole banner printed) or exits.
import { type ChildProcess, spawn } from 'node:child_process';

const root = new URL('../../', import.meta.url);

interface MainProcess {
  child: ChildProcess;
  /** Resolves with the banner and the GraphQL URL; rejects with `{ code, output }` if it exits first. */
  ready: Promise<{ output: string; url: string }>;
  /** The exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  output(): string;
}

/** `args`: what follows `node`; by default what `npm start` runs (tsx, the sources). */
export function startMain(env: Record<string, string>, args = ['--import', 'tsx', 'src/main.ts']): MainProcess {
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', UPSTREAM_URL: '', ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<{ output: string; url: string }>((resolve, reject) => {
    child.stdout.on('data', () => {
      const url = /ready at (http:\/\/\S+\/graphql)/.exec(output)?.[1];
      // Wait for the whole banner (the example query ends with a closing brace line).
      if (url && (env.UPSTREAM_URL ? /Upstream: \S+\n/.test(output) : /\n}\n/.test(output))) resolve({ output, url });
    });
    void exited.then((code) => reject(Object.assign(new Error(`exited with ${code}: ${output}`), { code, output })));
  });
  return { child, ready, exited, output: () => output };
}
