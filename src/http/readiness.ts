// `/readiness`: 200 when the upstream answers at all and the circuit breaker is not open, else 503
// with the reason. The probe is `GET /api/organizations/` without any key: a 401 is an answer, and
// no caller's key is ever sent here. Probes arriving together share one upstream request.
import type { Plugin } from 'graphql-yoga';
import { Pool } from 'undici';
import type { GuardedTransport } from '../rest/circuit-breaker.ts';

export const READINESS_PATH = '/readiness';

export interface ReadinessOptions {
  /** The REST base URL without `/api`. */
  upstreamUrl: string;
  /** How long the probe waits for the upstream. @default 2000 */
  timeoutMs?: number;
  transport: Pick<GuardedTransport, 'state'>;
}

export interface Readiness {
  /** `undefined` when ready, else why not. */
  check(): Promise<string | undefined>;
  /** From now on not ready: the process is shutting down. */
  beginShutdown(): void;
  readonly shuttingDown: boolean;
  plugin: Plugin;
  close(): Promise<void>;
}

export function createReadiness(options: ReadinessOptions): Readiness {
  const timeoutMs = options.timeoutMs ?? 2000;
  const base = new URL(options.upstreamUrl);
  const probePath = `${base.pathname.replace(/\/+$/, '')}/api/organizations/`;
  let pool: Pool | undefined;
  let inFlight: Promise<string | undefined> | undefined;
  let shuttingDown = false;

  async function probeUpstream(): Promise<string | undefined> {
    pool ??= new Pool(base.origin, { connections: 1 });
    try {
      const response = await pool.request({
        path: probePath,
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'org-graphql-gateway/0.1 (readiness)' },
        signal: AbortSignal.timeout(timeoutMs),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      await response.body.dump();
      return undefined; // any answer, a 401 included, means the upstream is reachable
    } catch (error) {
      const timedOut = (error as { name?: string }).name === 'TimeoutError' || /TIMEOUT/.test(String((error as { code?: string }).code));
      return timedOut ? `the upstream did not answer within ${timeoutMs} ms` : 'the upstream could not be reached';
    }
  }

  async function check(): Promise<string | undefined> {
    if (shuttingDown) return 'the gateway is shutting down';
    if (options.transport.state() === 'open') return 'the upstream circuit breaker is open';
    inFlight ??= probeUpstream().finally(() => (inFlight = undefined));
    return inFlight;
  }

  return {
    check,
    beginShutdown() {
      shuttingDown = true;
    },
    get shuttingDown() {
      return shuttingDown;
    },
    plugin: {
      async onRequest({ request, url, endResponse, fetchAPI }) {
        if (url.pathname !== READINESS_PATH || !['GET', 'HEAD'].includes(request.method)) return;
        const reason = await check();
        const body = reason === undefined ? { status: 'ready' } : { status: 'unavailable', reason };
        endResponse(fetchAPI.Response.json(body, { status: reason === undefined ? 200 : 503, headers: { 'cache-control': 'no-store' } }));
      },
    },
    async close() {
      shuttingDown = true;
      await pool?.close();
    },
  };
}
