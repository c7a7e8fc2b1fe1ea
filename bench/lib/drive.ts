// Drives one endpoint with autocannon: the same POST on every request, every response seen.
import autocannon from 'autocannon';
import { percentile } from './stats.ts';

interface DriveOptions {
  url: string;
  connections: number;
  durationSec: number;
  key: string;
  /** The JSON request body. */
  body: string;
  /** More bodies: each connection sends `body`, then these, in turn (e.g. one mutation among queries). */
  moreBodies?: string[];
  /** Gives every request its own `x-request-id` (`<prefix>-<n>`), so the upstream can count per request. */
  requestIdPrefix?: string;
  /** Parse every body and count those that are not a GraphQL response (JSON with `data` and/or `errors`). */
  checkBodies?: boolean;
  /** autocannon's per-request timeout. @default 10 */
  timeoutSec?: number;
  /** Told of every answer: when it arrived (epoch ms), how long it took, and whether it was its connection's first. */
  onAnswer?: (answer: { at: number; latencyMs: number; first: boolean }) => void;
}

export interface DriveResult {
  durationSec: number;
  /** Responses received (any status). */
  requests: number;
  requestsPerSec: number;
  /** Answers that were a whole result, per second: 2xx, and with checkBodies also data and no errors. */
  completePerSec: number;
  bytesPerSec: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
  /**
   * The same without each connection's first request. A server under load accepts one new
   * connection per event-loop turn (libuv#3696; Node 20 ships libuv 1.46), so the first requests
   * of a round's new connections wait in the kernel's accept queue for up to a second or two: at 50
   * connections they are the 2-3% of requests that make the p99.
   */
  openConnectionLatencyMs: { p50: number; p99: number };
  /** Each connection's first request: how long it took, accept queue included. */
  firstRequestMs: { count: number; p50: number; max: number };
  statusCodes: Record<string, number>;
  non2xx: number;
  /** Connection errors and timeouts: requests that got no response at all. */
  errors: number;
  timeouts: number;
  /** With checkBodies: responses whose body is not JSON with `data` and/or `errors`. */
  bodyless: number;
  bodylessSamples: { status: number; body: string }[];
  /** With checkBodies: responses with `errors` (partial data or none), and their `extensions.code`s. */
  withErrors: number;
  dataNull: number;
  errorCodes: Record<string, number>;
  /** A few of those errors, as answered. */
  errorSamples: unknown[];
  /** The `x-request-id` of every answered request (for counting its upstream calls). */
  answeredIds: string[];
  /** How many responses took longer than `ms`. */
  over(ms: number): number;
}

export async function drive(options: DriveOptions): Promise<DriveResult> {
  const latencies: number[] = [];
  const firstLatencies: number[] = [];
  const laterLatencies: number[] = [];
  const answeredIds: string[] = [];
  const check: BodyCheck = { complete: 0, bodyless: 0, withErrors: 0, dataNull: 0, errorCodes: {}, samples: [], errorSamples: [] };

  const onResponse = (status: number, body: string, _context: object, headers: Record<string, unknown> | undefined) => {
    const id = headers?.['x-request-id'] ?? headers?.['X-Request-Id'];
    if (typeof id === 'string') answeredIds.push(id);
    if (options.checkBodies) inspectBody(status, body, check);
  };

  let settle: { resolve(result: autocannon.Result): void; reject(error: Error): void } | undefined;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const headers = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${options.key}` };
  let sent = 0;
  const withRequestId = (request: { headers?: Record<string, string> }) => {
    sent += 1;
    return { ...request, headers: { ...request.headers, 'x-request-id': `${options.requestIdPrefix}-${sent}` } };
  };
  const requests = [options.body, ...(options.moreBodies ?? [])].map((body) => ({
    method: 'POST' as const,
    headers,
    body,
    onResponse: onResponse as never,
    ...(options.requestIdPrefix !== undefined && { setupRequest: withRequestId as never }),
  }));
  const instance = autocannon(
    {
      url: options.url,
      connections: options.connections,
      duration: options.durationSec,
      timeout: options.timeoutSec ?? 10,
      requests,
    },
    (error, result) => (error ? settle?.reject(error as Error) : settle?.resolve(result)),
  );
  const answeredClients = new WeakSet<object>();
  instance.on('response', (client, _status, _bytes, responseTime) => {
    latencies.push(responseTime);
    const first = !answeredClients.has(client);
    if (first) {
      answeredClients.add(client);
      firstLatencies.push(responseTime);
    } else laterLatencies.push(responseTime);
    options.onAnswer?.({ at: Date.now(), latencyMs: responseTime, first });
  });
  const result = await finished;

  for (const list of [latencies, firstLatencies, laterLatencies]) list.sort((a, b) => a - b);
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, v]) => [code, Number((v as { count: number }).count)]),
  );
  return {
    durationSec: result.duration,
    requests: latencies.length,
    requestsPerSec: latencies.length / result.duration,
    completePerSec: (options.checkBodies ? check.complete : latencies.length - result.non2xx) / result.duration,
    bytesPerSec: result.throughput.average,
    latencyMs: {
      mean: latencies.reduce((a, b) => a + b, 0) / (latencies.length || 1),
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1] ?? Number.NaN,
    },
    openConnectionLatencyMs: { p50: percentile(laterLatencies, 50), p99: percentile(laterLatencies, 99) },
    firstRequestMs: {
      count: firstLatencies.length,
      p50: percentile(firstLatencies, 50),
      max: firstLatencies[firstLatencies.length - 1] ?? Number.NaN,
    },
    statusCodes,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    bodyless: check.bodyless,
    bodylessSamples: check.samples,
    withErrors: check.withErrors,
    dataNull: check.dataNull,
    errorCodes: check.errorCodes,
    errorSamples: check.errorSamples,
    answeredIds,
    over: (ms) => latencies.filter((latency) => latency > ms).length,
  };
}

interface BodyCheck {
  complete: number;
  bodyless: number;
  withErrors: number;
  dataNull: number;
  errorCodes: Record<string, number>;
  samples: { status: number; body: string }[];
  errorSamples: unknown[];
}

function inspectBody(status: number, body: string, check: BodyCheck): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || !('data' in parsed || 'errors' in parsed)) {
    check.bodyless += 1;
    if (check.samples.length < 5) check.samples.push({ status, body: body.slice(0, 300) });
    return;
  }
  const response = parsed as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
  if (response.data === null || response.data === undefined) check.dataNull += 1;
  const errors = Array.isArray(response.errors) ? response.errors : [];
  if (errors.length === 0 && status >= 200 && status < 300 && response.data !== null && response.data !== undefined) check.complete += 1;
  if (errors.length > 0) {
    check.withErrors += 1;
    for (const error of errors) {
      const code = error.extensions?.code ?? 'none';
      check.errorCodes[code] = (check.errorCodes[code] ?? 0) + 1;
      if (check.errorSamples.length < 5) check.errorSamples.push(error);
    }
  }
}

/** One request, outside the load: the parsed JSON answer and its status. */
export async function postOnce(
  url: string,
  key: string,
  body: string,
): Promise<{ status: number; json: unknown; requestId: string | null }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${key}` },
    body,
  });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: response.status, json, requestId: response.headers.get('x-request-id') };
}
