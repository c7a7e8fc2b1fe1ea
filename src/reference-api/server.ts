// startReferenceApi: one independent in-memory REST server on a loopback port. Everything an instance
// owns (store, settings, recorded requests, fault injection, counters) is created here, so instances
// share nothing.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AnswerCache } from './answer-cache.ts';
import type { ReferenceApiKey } from './auth.ts';
import { CONTROL_PREFIX, control } from './control.ts';
import { seedDemoData } from './demo-data.ts';
import { seedUsers } from './demo-users.ts';
import { FaultInjector } from './faults.ts';
import { seedGeneratedData } from './generated-data.ts';
import { decodeJsonBody, encodeJson, readRawBody, sendJson } from './http.ts';
import { type ReferenceApiOptions, type ReferenceApiSettings, resolveSettings } from './options.ts';
import { type RecordedRequest, recordRequest } from './recording.ts';
import { dispatch, Router } from './router.ts';
import { allRoutes } from './routes/index.ts';
import { type ScriptedAnswer, USE_ROUTES } from './scripted.ts';
import { ReferenceStore } from './store.ts';
import { TrafficCounters, type TrafficStats } from './traffic.ts';

export interface ReferenceApi {
  /** Base URL without `/api`, e.g. `http://127.0.0.1:43121`. */
  url: string;
  /** label -> key. */
  keys: { demo: string } & Record<string, string>;
  allKeys: ReferenceApiKey[];
  /** Every request received, in order. */
  requests: RecordedRequest[];
  clearRequests(): void;
  /** Answers every request but /__control/ ones with `answer` (scripted.ts) instead of the routes, until set back to null. Tests only. */
  answerWith(answer: ScriptedAnswer | null): void;
  /** The live in-memory state: arrange data and inspect writes through it. */
  store: ReferenceStore;
  /** The resolved options; `liveShapes`, `maxPageSize` and `domainVerificationPasses` may be changed at run time. */
  settings: ReferenceApiSettings;
  /** The delay and fault injection (the `faults` option); `configure()` changes it at run time. */
  faults: FaultInjector;
  /** The counters of the control endpoints (only counted with the `control` option). */
  stats(withRequestIds?: boolean): TrafficStats;
  close(): Promise<void>;
}

export async function startReferenceApi(options: ReferenceApiOptions = {}): Promise<ReferenceApi> {
  const settings = resolveSettings(options);
  // The clock is read through settings, so a test may swap `settings.now` on a running server.
  const store = new ReferenceStore({ now: () => settings.now() });
  seedUsers(store);
  if (settings.demoData) seedDemoData(store);
  if (settings.generatedData) seedGeneratedData(store, settings.generatedData);
  const router = new Router(allRoutes);
  const requests: RecordedRequest[] = [];
  const faults = new FaultInjector(options.faults);
  const traffic = new TrafficCounters();
  const answers = settings.cacheAnswers ? new AnswerCache() : undefined;
  let fallbackHost = settings.host;
  let scripted: ScriptedAnswer | null = null;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // A GET carries no body: not waiting for its end saves a turn of the event loop per call.
    const raw = hasBody(req) ? await readRawBody(req) : '';
    const target = req.url ?? '/';
    const path = target.split('?')[0] ?? '/';
    const requestUrl = (): URL => {
      try {
        return new URL(target, `http://${req.headers.host ?? fallbackHost}`);
      } catch {
        return new URL(target, `http://${fallbackHost}`);
      }
    };
    const method = (req.method ?? 'GET').toUpperCase();
    if (settings.control && path.startsWith(CONTROL_PREFIX)) {
      const reply = control({ method, path, url: requestUrl(), body: raw }, faults, traffic);
      sendJson(res, reply.status, reply.body);
      return;
    }
    const recorded = settings.recordRequests || scripted ? recordRequest(req, method, path, requestUrl(), raw) : undefined;
    if (recorded && settings.recordRequests) requests.push(recorded);
    if (scripted && recorded && (await scripted(recorded, res, req)) !== USE_ROUTES) return;
    const cacheKey = answers && method === 'GET' ? AnswerCache.keyOf(req.headers.authorization, req.headers.host, target) : undefined;
    let answer = cacheKey === undefined ? undefined : answers?.get(cacheKey);
    if (!answer) {
      const reply = dispatch(
        router,
        { method, path, url: requestUrl(), authorization: req.headers.authorization, body: decodeJsonBody(raw) },
        store,
        settings,
      );
      answer = encodeJson(reply.status, reply.body, reply.headers, method === 'HEAD');
      if (cacheKey !== undefined && reply.status === 200) answers?.set(cacheKey, answer);
      else if (method !== 'GET' && method !== 'HEAD') answers?.clear();
    }
    const delivery = faults.deliver(res, answer);
    if (settings.control)
      traffic.countCall({ method, requestId: firstHeader(req.headers['x-request-id']), status: answer.status }, delivery);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('reference-api: request failed', error);
      if (!res.headersSent) sendJson(res, 500, { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null });
      else res.destroy();
    });
  });

  if (settings.control) server.on('connection', () => traffic.countConnection());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  settings.port = port;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  fallbackHost = `${host}:${port}`;

  let closing: Promise<void> | undefined;
  const keys = Object.fromEntries(settings.keys.map((key) => [key.label, key.key])) as ReferenceApi['keys'];
  return {
    url: `http://${host}:${port}`,
    keys,
    allKeys: settings.keys,
    requests,
    clearRequests: () => {
      requests.length = 0;
    },
    answerWith: (answer) => {
      scripted = answer;
    },
    store,
    settings,
    faults,
    stats: (withRequestIds = false) => traffic.stats(withRequestIds),
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections(); // keep-alive clients (undici) would otherwise hold the server open
      });
      return closing;
    },
  };
}

function firstHeader(value: string | string[] | undefined): string {
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

/** Whether the request says it has a body (a length above 0, or chunked). */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}
