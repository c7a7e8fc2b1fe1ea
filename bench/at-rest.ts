// `npm run bench:at-rest`: what the compiled gateway costs before its first request. How long
// `node dist/main.js` takes from its start to its banner, and its heap and RSS once started (after
// two full collections), under start:prod's flags, each start a fresh process. UPSTREAM_URL names
// a loopback port nothing listens on (nothing calls the upstream at start); with --embedded it is
// unset, and the bundled reference API starts as well, as on `npm start`.
//   npm run bench:at-rest                  # 7 starts
//   npm run bench:at-rest -- --starts 15 --embedded
import { spawn } from 'node:child_process';
import { readFlags } from './lib/cli.ts';
import { buildGateway, productionNodeArgs, REPO_ROOT } from './lib/processes.ts';
import { writeResult } from './lib/results.ts';
import { fileStamp, spread } from './lib/stats.ts';

const { numbers, booleans } = readFlags({ starts: { env: 'BENCH_STARTS', default: 7, quick: 3 } }, {}, ['embedded']);

interface AtRest {
  readyMs: number;
  heapUsedMb: number;
  rssMb: number;
}

/** One start: the time to the banner's first line, then the probe's reading once the banner is out. */
function startOnce(): Promise<AtRest> {
  const startedAt = performance.now();
  const args = [...productionNodeArgs(), '--expose-gc', '--import', './bench/lib/at-rest-probe.mjs', 'dist/main.js'];
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'warn',
      UPSTREAM_URL: booleans.embedded ? '' : 'http://127.0.0.1:9',
    },
  });
  return new Promise((resolve, reject) => {
    let readyMs: number | undefined;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (readyMs !== undefined || !chunk.toString().includes('GraphQL gateway ready at')) return;
      readyMs = performance.now() - startedAt;
      // After the banner, so the reading is of a gateway at rest, not one still printing.
      setTimeout(() => child.kill('SIGUSR2'), 500);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
      const line = /\{"atRest":.*\}/.exec(stderr)?.[0];
      if (!line || readyMs === undefined) return;
      child.kill('SIGTERM');
      resolve({ readyMs, ...(JSON.parse(line) as { atRest: Omit<AtRest, 'readyMs'> }).atRest });
    });
    child.once('exit', (code) => reject(new Error(`the gateway exited (${code}) before its reading:\n${stderr}`)));
  });
}

buildGateway();
const starts: AtRest[] = [];
for (let i = 0; i < numbers.starts; i += 1) starts.push(await startOnce());
const report = (label: string, pick: (start: AtRest) => number, digits: number) =>
  console.log(`  ${label}: ${spread(starts.map(pick), digits)}`);
console.log(
  `${numbers.starts} starts of the compiled gateway${booleans.embedded ? ' with the embedded reference API' : ''}, median (min–max):`,
);
report('start to banner, ms', (start) => start.readyMs, 0);
report('heap used at rest, MB', (start) => start.heapUsedMb, 1);
report('RSS at rest, MB', (start) => start.rssMb, 1);
writeResult('at-rest', fileStamp(), { ...numbers, embedded: booleans.embedded }, { starts });
