// A worker thread that asks the gateway's `/health` every `intervalMs` on a connection of its own
// and times each answer. It runs on its own event loop, so the benchmark's thousand clients on the
// main thread do not delay its clock or its reads: what it measures is the gateway's delay.
import { parentPort, workerData } from 'node:worker_threads';
import { Client } from 'undici';

interface ProbeData {
  /** The gateway's origin, e.g. `http://127.0.0.1:4000`. */
  origin: string;
  intervalMs: number;
}

export interface ProbeResult {
  latencyMs: number[];
  /** Probes that got no 200. */
  failed: number;
}

const { origin, intervalMs } = workerData as ProbeData;
const client = new Client(origin, { pipelining: 1 });
const result: ProbeResult = { latencyMs: [], failed: 0 };
let running = true;

parentPort?.once('message', () => {
  running = false;
});

while (running) {
  const startedAt = performance.now();
  try {
    const response = await client.request({ path: '/health', method: 'GET' });
    await response.body.dump();
    if (response.statusCode === 200) result.latencyMs.push(performance.now() - startedAt);
    else result.failed += 1;
  } catch {
    result.failed += 1;
  }
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, intervalMs - (performance.now() - startedAt))));
}
await client.close();
parentPort?.postMessage(result);
