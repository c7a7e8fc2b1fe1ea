// `npm run bench:alloc`: what the gateway allocates per dashboard, and where. The gateway runs in this
// process behind a real HTTP server (logging at info to a temporary file, as in production); autocannon
// drives it from a child process; V8's sampling heap profiler records every allocation during the
// measured seconds, including objects the GC has already collected. Garbage is what the collector
// pays for, so this is the number to bring down.
//   npm run bench:alloc                 # 50 connections, 6 s after a 3 s warm-up, top 30 functions
//   npm run bench:alloc -- --quick      # 2 s
//   npm run bench:alloc -- --connections 10 --top 50
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConfig } from '../src/config/index.ts';
import { createGateway } from '../src/gateway.ts';
import { createLogger } from '../src/observability/logger.ts';
import { readFlags } from './lib/cli.ts';
import { driveInChild } from './lib/drive-child.ts';
import { type CallFrame, frameName } from './lib/frames.ts';
import { startScript } from './lib/processes.ts';
import { writeResult } from './lib/results.ts';
import { fileStamp, table } from './lib/stats.ts';

const { numbers } = readFlags({
  duration: { env: 'BENCH_DURATION', default: 6, quick: 2 },
  connections: { env: 'BENCH_CONNECTIONS', default: 50 },
  'warmup-sec': { env: 'BENCH_WARMUP_SEC', default: 3, quick: 1 },
  top: { env: 'BENCH_TOP', default: 30 },
});

interface SamplingNode {
  callFrame: CallFrame;
  selfSize: number;
  children: SamplingNode[];
}

const key = 'phx_bench_alloc_key';
const stamp = fileStamp();
const upstream = await startScript('bench/fake-upstream.ts', ['--key', key]);
const gateway = createGateway({
  upstreamUrl: upstream.url,
  logger: createLogger({ ...resolveConfig(), logFile: join(tmpdir(), `bench-alloc-${stamp}.log`) }),
});
const server = createServer(gateway.listener);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;

const drive = (seconds: number) => driveInChild({ url, key, seconds, connections: numbers.connections });

console.log(
  `allocation per dashboard: ${numbers.connections} connections, ${numbers.duration} s after ${numbers['warmup-sec']} s of warm-up`,
);
await drive(numbers['warmup-sec']);
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
const load = await drive(numbers.duration);
const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: SamplingNode } };
session.disconnect();
server.close();
await gateway.close();
await upstream.stop();

const bytesByFunction = new Map<string, number>();
let totalBytes = 0;
const visit = (node: SamplingNode) => {
  const name = frameName(node.callFrame);
  bytesByFunction.set(name, (bytesByFunction.get(name) ?? 0) + node.selfSize);
  totalBytes += node.selfSize;
  node.children.forEach(visit);
};
visit(profile.head);

const kbPerDashboard = (bytes: number) => bytes / load.requests / 1024;
const top = [...bytesByFunction].sort((a, b) => b[1] - a[1]).slice(0, numbers.top);
console.log(
  `\n${load.requests} dashboards (${load.requestsPerSec.toFixed(0)}/s): ${kbPerDashboard(totalBytes).toFixed(0)} KB allocated per dashboard\n`,
);
console.log(
  table(
    ['KB/dashboard', 'function (where it allocated, inlined callees included)'],
    top.map(([name, bytes]) => [kbPerDashboard(bytes).toFixed(1), name]),
  ),
);

writeResult('alloc', stamp, numbers, {
  load,
  kbPerDashboard: kbPerDashboard(totalBytes),
  top: top.map(([name, bytes]) => ({ name, kbPerDashboard: kbPerDashboard(bytes) })),
});
process.exit(0);
