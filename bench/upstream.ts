// The benchmarks' REST upstream: the reference API (src/reference-api) in a process of its own,
// with the bench dataset (lib/dataset.ts) instead of the demo data, the given keys (all the demo
// user's, every scope, so every key sees the same data), a fixed delay and injected faults
// (src/reference-api/faults.ts), the control endpoints under /__control/ (lib/upstream-control.ts),
// no request log (a run sends millions of requests), and each GET's answer kept until the next write
// (answer-cache.ts: at 0 ms the floor asks ~17,000 calls/s, more than the server renders afresh).
//   tsx bench/upstream.ts --key <key> [--key <another key> ...] [--port 0] [--delay-ms 0] [--fault-rate 0] [--slow-ms 1500] [--seed 1]
// prints one JSON line {"url": ...} once listening.
import { parseArgs } from 'node:util';
import { DEMO_USER_ID } from '../src/reference-api/demo-users.ts';
import { startReferenceApi } from '../src/reference-api/index.ts';
import { DATASET_SIZES } from './lib/dataset.ts';

const { values } = parseArgs({
  options: {
    key: { type: 'string', multiple: true },
    port: { type: 'string', default: '0' },
    'delay-ms': { type: 'string', default: '0' },
    'fault-rate': { type: 'string', default: '0' },
    'slow-ms': { type: 'string', default: '1500' },
    seed: { type: 'string', default: '1' },
  },
});
if (!values.key?.length) throw new Error('--key is required');

const api = await startReferenceApi({
  port: Number(values.port),
  keys: values.key.map((key, i) => ({ key, userId: DEMO_USER_ID, scopes: ['*'], label: `bench${i + 1}` })),
  demoData: false,
  generatedData: DATASET_SIZES,
  faults: {
    delayMs: Number(values['delay-ms']),
    faultRate: Number(values['fault-rate']),
    slowMs: Number(values['slow-ms']),
    seed: Number(values.seed),
  },
  control: true,
  recordRequests: false,
  cacheAnswers: true,
});
console.log(JSON.stringify({ url: api.url }));
const stop = () => void api.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
