// The control endpoints, served under /__control/ only with the `control` option (never by
// `npm start`'s or `npm run reference-api`'s server): a benchmark or a test in another process
// reads the counters and changes the fault injection through them.
//   GET  /__control/stats[?ids=1]  the counters since the last reset (traffic.ts), with calls per x-request-id
//   POST /__control/reset          zeroes the counters
//   POST /__control/config         {"delayMs", "faultRate", "faultKinds", "slowMs", "dripIntervalMs", "seed"}: answers the settings
import type { FaultInjector } from './faults.ts';
import type { TrafficCounters } from './traffic.ts';

export const CONTROL_PREFIX = '/__control/';

interface ControlCall {
  method: string;
  path: string;
  url: URL;
  /** The raw body text. */
  body: string;
}

interface ControlReply {
  status: number;
  body: unknown;
}

export function control(call: ControlCall, faults: FaultInjector, traffic: TrafficCounters): ControlReply {
  const action = call.path.slice(CONTROL_PREFIX.length);
  if (action === 'stats' && call.method === 'GET') return { status: 200, body: traffic.stats(call.url.searchParams.get('ids') === '1') };
  if (action === 'reset' && call.method === 'POST') {
    traffic.reset();
    return { status: 200, body: { ok: true } };
  }
  if (action === 'config' && call.method === 'POST') {
    try {
      return { status: 200, body: faults.configure(call.body.trim() === '' ? {} : JSON.parse(call.body)) };
    } catch (error) {
      return { status: 400, body: { error: error instanceof Error ? error.message : String(error) } };
    }
  }
  return { status: 404, body: { error: `no control endpoint ${call.method} ${call.path}` } };
}
