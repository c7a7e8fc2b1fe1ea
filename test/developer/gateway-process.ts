// `npm start` as a child process (src/main.ts on a free port, the embedded demo API unless
// UPSTREAM_URL is given), for the tests that drive the gateway from outside: a browser, the
// example client.
import { startMain } from '../support/main-process.ts';

export interface GatewayProcess {
  /** e.g. http://127.0.0.1:41234/graphql */
  url: string;
  /** The demo key the banner prints (embedded reference API only). */
  demoKey: string | undefined;
  /** SIGTERM, then SIGKILL if it has not exited within a few seconds. */
  stop(): Promise<void>;
}

export const repositoryRoot = new URL('../../', import.meta.url);

/** `args`: what follows `node` (startMain's; by default what `npm start` runs). */
export async function startGatewayProcess(env: Record<string, string> = {}, args?: string[]): Promise<GatewayProcess> {
  const main = startMain(env, args);
  const { output, url } = await main.ready;
  let stopping: Promise<void> | undefined;
  return {
    url,
    demoKey: /Authorization: Bearer (\S+)/.exec(output)?.[1],
    stop() {
      stopping ??= (async () => {
        if (main.child.exitCode !== null || main.child.signalCode !== null) return;
        const force = setTimeout(() => main.child.kill('SIGKILL'), 5000);
        main.child.kill('SIGTERM');
        await main.exited;
        clearTimeout(force);
      })();
      return stopping;
    },
  };
}
