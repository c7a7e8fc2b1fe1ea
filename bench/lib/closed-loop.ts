// Closed-loop clients for the overload benchmark: each client sends one request, waits for its whole
// answer, and sends the next at once, except after a refusal, when it waits as long as `Retry-After`
// says (autocannon cannot). Each client has its own connection (one undici Pool of `clients`
// connections), so 1000 clients are 1000 connections, as 1000 browsers or services would be.
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';

interface ClosedLoopOptions {
  /** The gateway's `/graphql` URL. */
  url: string;
  clients: number;
  key: string;
  /** The JSON request body. */
  body: string;
  /** Requests sent from this `performance.now()` time (after the warm-up)… */
  countFrom: number;
  /** …until this one are counted, whenever their answers come; clients send nothing after it. */
  stopAt: number;
  /** How long past `stopAt` requests still in flight are waited for before they are abandoned. @default DRAIN_MS */
  drainMs?: number;
  /** Whether a 200 answer is the whole, error-free result. */
  isGood(json: unknown): boolean;
  /** After a failure that says nothing of when to come back (a connection closed), wait this long. */
  backoffMs: number;
}

export interface ClosedLoopResult {
  /** Whole, error-free answers to requests sent within the counted window, and their latencies. */
  good: number;
  goodLatencyMs: number[];
  /** 503 answers with `OVERLOADED`, their latencies (seen by the client) and the `Retry-After` values asked. */
  refused: number;
  refusalLatencyMs: number[];
  retryAfterSeconds: Record<string, number>;
  /** Other answers, by status and their errors' distinct `extensions.code`s (e.g. `200 UPSTREAM_TIMEOUT`). */
  other: Record<string, number>;
  /** Requests that got no answer at all (connection closed or reset, or none within the drain), by error code. */
  noAnswer: Record<string, number>;
}

/**
 * Longer than any answer may take (REQUEST_DEADLINE_MS, 10 s by default, and a write seen through):
 * a request sent before the end is always waited for. Counting answers by when they end instead
 * would count the slowest requests sent in the warm-up (a cold process's first burst) and drop the
 * slowest sent near the end.
 */
const DRAIN_MS = 15_000;

export async function runClosedLoop(options: ClosedLoopOptions): Promise<ClosedLoopResult> {
  const target = new URL(options.url);
  const pool = new Pool(target.origin, { connections: options.clients, pipelining: 1 });
  const result: ClosedLoopResult = {
    good: 0,
    goodLatencyMs: [],
    refused: 0,
    refusalLatencyMs: [],
    retryAfterSeconds: {},
    other: {},
    noAnswer: {},
  };
  const headers = { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${options.key}` };
  const stopped = new AbortController();
  setMaxListeners(0, stopped.signal); // every client's request and pause listens to it
  const counted = (sentAt: number) => sentAt >= options.countFrom && sentAt < options.stopAt;
  const bump = (table: Record<string, number>, name: string) => {
    table[name] = (table[name] ?? 0) + 1;
  };
  const pause = (ms: number) => sleep(Math.min(ms, Math.max(0, options.stopAt - performance.now())), undefined, { signal: stopped.signal });

  async function client(): Promise<void> {
    while (performance.now() < options.stopAt) {
      const startedAt = performance.now();
      let status: number;
      let text: string;
      let retryAfter: string | undefined;
      try {
        const response = await pool.request({
          path: target.pathname,
          method: 'POST',
          headers,
          body: options.body,
          signal: stopped.signal,
          headersTimeout: 0,
          bodyTimeout: 0,
        });
        status = response.statusCode;
        retryAfter = response.headers['retry-after'] as string | undefined;
        text = await response.body.text();
      } catch (error) {
        if (counted(startedAt))
          bump(
            result.noAnswer,
            stopped.signal.aborted ? 'none within the drain' : String((error as { code?: string }).code ?? (error as Error).name),
          );
        if (stopped.signal.aborted) return;
        await pause(options.backoffMs);
        continue;
      }
      const endedAt = performance.now();
      const latency = endedAt - startedAt;
      const json = parse(text);
      const codes = errorCodes(json);
      if (status === 503 && codes === 'OVERLOADED') {
        if (counted(startedAt)) {
          result.refused += 1;
          result.refusalLatencyMs.push(latency);
          bump(result.retryAfterSeconds, retryAfter ?? 'none');
        }
        await pause(Number(retryAfter ?? 1) * 1000);
      } else if (status === 200 && options.isGood(json)) {
        if (counted(startedAt)) {
          result.good += 1;
          result.goodLatencyMs.push(latency);
        }
      } else if (counted(startedAt)) {
        bump(result.other, `${status} ${codes || 'no error'}`);
      }
    }
  }

  const clients = Array.from({ length: options.clients }, () => client().catch(() => undefined));
  const stopTimer = setTimeout(() => stopped.abort(), Math.max(0, options.stopAt + (options.drainMs ?? DRAIN_MS) - performance.now()));
  await Promise.all(clients);
  clearTimeout(stopTimer);
  await pool.destroy();
  return result;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The answer's distinct error codes, sorted and joined by commas ('' without errors). */
function errorCodes(json: unknown): string {
  const errors = (json as { errors?: { extensions?: { code?: unknown } }[] } | undefined)?.errors;
  if (!Array.isArray(errors)) return '';
  return [...new Set(errors.map((error) => String(error?.extensions?.code ?? 'none')))].sort().join(',');
}
