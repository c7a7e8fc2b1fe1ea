// `/readiness`: whether this instance can serve. 200 until shutdown begins, then 503. The upstream's
// health is reported in the body, not in the status: an upstream outage hits every instance alike,
// so a 503 would only make the load balancer drop them all at once and turn the callers' GraphQL
// errors (UPSTREAM_ERROR, with the rest of the data) into its own 503 pages.
// The body says whether the upstream answers `GET /api/organizations/` sent without any key (a 401
// is an answer; no caller's key is ever sent here) and which circuit breakers are not closed.
// Readiness must answer fast whatever the upstream does (a load balancer's check may time out after
// a second), so it reports the last finished probe and starts the next one; only the very first
// check waits for its probe. Checks arriving together share one upstream request.
import type { Plugin } from 'graphql-yoga';
import { Pool } from 'undici';
import type { GuardedTransport } from '../upstream/resilience/circuit-breaker.ts';
import { probeUpstreamOnce, timedOut } from './upstream-probe.ts';

const READINESS_PATH = '/readiness';

export interface ReadinessOptions {
  /** The REST base URL without `/api`. */
  upstreamUrl: string;
  /** How long the probe waits for the upstream. */
  timeoutMs: number;
  transport: Pick<GuardedTransport, 'circuits'>;
  /** The cache's store (CACHE), reported as information like the upstream: a store that is down never fails readiness. */
  cacheStore?: () => CacheStoreReport | undefined;
  /** Open GraphQL over WebSocket connections; undefined while no server serves WebSocket (src/http/websocket.ts). */
  openWebSockets?: () => number | undefined;
}

export interface CacheStoreReport {
  store: 'memory' | 'redis';
  reachable: boolean;
}

type ReadinessReport =
  | {
      status: 'ready';
      upstream: { reachable: boolean; reason?: string; circuits: ReturnType<GuardedTransport['circuits']> };
      cache?: CacheStoreReport;
      webSockets?: { open: number };
    }
  | { status: 'unavailable'; reason: string };

interface Readiness {
  check(): Promise<ReadinessReport>;
  /** From now on not ready: the process is shutting down. */
  beginShutdown(): void;
  readonly shuttingDown: boolean;
  plugin: Plugin;
  close(): Promise<void>;
}

export function createReadiness(options: ReadinessOptions): Readiness {
  const { timeoutMs } = options;
  let pool: Pool | undefined;
  let inFlight: Promise<string | undefined> | undefined;
  let lastProbe: { reason: string | undefined } | undefined;
  let shuttingDown = false;

  /** `undefined` when the upstream answered, else why not. */
  async function probeUpstream(): Promise<string | undefined> {
    pool ??= new Pool(new URL(options.upstreamUrl).origin, { connections: 1 });
    const error = await probeUpstreamOnce(options.upstreamUrl, timeoutMs, 'readiness', pool);
    if (error === undefined) return undefined;
    return timedOut(error) ? `the upstream did not answer within ${timeoutMs} ms` : 'the upstream could not be reached';
  }

  async function check(): Promise<ReadinessReport> {
    if (shuttingDown) return { status: 'unavailable', reason: 'the gateway is shutting down' };
    inFlight ??= probeUpstream()
      .then((reason) => {
        lastProbe = { reason };
        return reason;
      })
      .finally(() => {
        inFlight = undefined;
      });
    const reason = lastProbe ? lastProbe.reason : await inFlight;
    const circuits = options.transport.circuits();
    const upstream = reason === undefined ? { reachable: true, circuits } : { reachable: false, reason, circuits };
    const cache = options.cacheStore?.();
    const open = options.openWebSockets?.();
    return { status: 'ready', upstream, ...(cache && { cache }), ...(open !== undefined && { webSockets: { open } }) };
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
        const report = await check();
        endResponse(
          fetchAPI.Response.json(report, { status: report.status === 'ready' ? 200 : 503, headers: { 'cache-control': 'no-store' } }),
        );
      },
    },
    async close() {
      shuttingDown = true;
      // A probe in flight is cut, not waited for (up to READINESS_TIMEOUT_MS): shutdown has its own grace.
      await pool?.destroy();
    },
  };
}
