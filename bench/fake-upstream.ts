// A fast fake of the REST upstream (node:http): serves the benchmark dataset in the REST shapes the
// gateway reads, with an optional fixed delay and injected faults, and counts what it is sent.
//   tsx bench/fake-upstream.ts --key <key> [--port 0] [--delay-ms 0] [--fault-rate 0] [--slow-ms 1500] [--seed 1]
// prints one JSON line {"url": ...} once listening. Control endpoints (not under /api):
//   GET /__bench/stats[?ids=1]  counters since the last reset (with calls per x-request-id)
//   POST /__bench/reset         zero the counters
//   POST /__bench/config        {"delayMs", "faultRate", "slowMs", "seed"}
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildDataset, type Dataset, type OrgList } from './lib/dataset.ts';
import { type Random, seededRandom } from './lib/prng.ts';

export const FAULT_KINDS = ['http500', 'drop', 'malformed', 'slow'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface UpstreamBehaviour {
  /** Fixed delay before every answer. @default 0 */
  delayMs: number;
  /** Share of /api answers replaced by a fault (500, dropped connection, malformed JSON or a slow answer). @default 0 */
  faultRate: number;
  /** How late a "slow" fault answers; set it past the gateway's UPSTREAM_TIMEOUT_MS. @default 1500 */
  slowMs: number;
  /** Seed of the PRNG that picks the faults. @default 1 */
  seed: number;
}

export interface FakeUpstreamOptions extends Partial<UpstreamBehaviour> {
  /** The bearer key every call must carry (`Authorization: Bearer <key>`); others get a 401. */
  key: string;
  port?: number;
  host?: string;
}

export interface UpstreamStats {
  /** Requests to /api since the last reset. */
  calls: number;
  /** Of those, the ones without exactly `Authorization: Bearer <key>`. */
  badAuth: number;
  byRoute: Record<string, number>;
  byStatus: Record<string, number>;
  faults: Record<FaultKind, number>;
  /** Calls per `x-request-id` (only with `?ids=1`); calls without one count under "". */
  perRequestId?: Record<string, number>;
}

interface Answer {
  status: number;
  body: Buffer;
  route: string;
}

const LIST_SEGMENTS = new Set<string>([
  'batch_exports',
  'domains',
  'invites',
  'members',
  'pipeline_destinations',
  'pipeline_frontend_apps',
  'pipeline_import_apps',
]);
const DEFAULT_LIMIT = 100;

export async function startFakeUpstream(options: FakeUpstreamOptions) {
  const dataset = buildDataset();
  const behaviour: UpstreamBehaviour = {
    delayMs: options.delayMs ?? 0,
    faultRate: options.faultRate ?? 0,
    slowMs: options.slowMs ?? 1500,
    seed: options.seed ?? 1,
  };
  let random: Random = seededRandom(behaviour.seed);
  const expectedAuth = `Bearer ${options.key}`;
  let stats = emptyStats();
  let perRequestId = new Map<string, number>();
  // The data never changes, so each distinct URL is rendered once.
  const answers = new Map<string, Answer>();
  let baseUrl = '';

  const server = createServer((req, res) => {
    const url = req.url ?? '/';
    if (url.startsWith('/__bench/')) {
      void control(req, res, url);
      return;
    }
    stats.calls += 1;
    const requestId = headerValue(req.headers['x-request-id']);
    perRequestId.set(requestId, (perRequestId.get(requestId) ?? 0) + 1);

    if (req.headers.authorization !== expectedAuth) {
      stats.badAuth += 1;
      return finish(res, { status: 401, route: 'unauthorized', body: errorBody('authentication_error', 'not_authenticated', 'Invalid personal API key.') });
    }
    if (req.method !== 'GET') {
      return finish(res, { status: 405, route: 'method', body: errorBody('invalid_request', 'method_not_allowed', `Method "${req.method}" not allowed.`) });
    }
    let answer = answers.get(url);
    if (!answer) {
      answer = render(dataset, baseUrl, url);
      answers.set(url, answer);
    }
    stats.byRoute[answer.route] = (stats.byRoute[answer.route] ?? 0) + 1;

    if (behaviour.faultRate > 0 && random() < behaviour.faultRate) {
      const kind = FAULT_KINDS[Math.floor(random() * FAULT_KINDS.length)] as FaultKind;
      stats.faults[kind] += 1;
      return fault(kind, res, answer);
    }
    if (behaviour.delayMs > 0) setTimeout(() => finish(res, answer), behaviour.delayMs);
    else finish(res, answer);
  });
  server.keepAliveTimeout = 65_000;

  function finish(res: ServerResponse, answer: Answer): void {
    if (res.destroyed) return;
    stats.byStatus[answer.status] = (stats.byStatus[answer.status] ?? 0) + 1;
    res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': answer.body.length });
    res.end(answer.body);
  }

  function fault(kind: FaultKind, res: ServerResponse, answer: Answer): void {
    switch (kind) {
      case 'http500':
        return finish(res, { ...answer, status: 500, body: errorBody('server_error', 'error', 'A server error occurred.') });
      case 'drop':
        res.socket?.destroy(); // no answer at all: the connection just goes away
        return;
      case 'malformed': {
        const cut = answer.body.subarray(0, Math.max(1, Math.floor(answer.body.length / 2)));
        return finish(res, { ...answer, status: 200, body: cut });
      }
      case 'slow':
        setTimeout(() => finish(res, answer), behaviour.slowMs);
        return;
    }
  }

  async function control(req: IncomingMessage, res: ServerResponse, url: string): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const send = (body: unknown) => {
      const text = JSON.stringify(body);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
    };
    const path = url.split('?')[0];
    if (path === '/__bench/stats') {
      const withIds = url.includes('ids=1');
      return send({ ...stats, ...(withIds && { perRequestId: Object.fromEntries(perRequestId) }) } satisfies UpstreamStats);
    }
    if (path === '/__bench/reset' && req.method === 'POST') {
      stats = emptyStats();
      perRequestId = new Map();
      return send({ ok: true });
    }
    if (path === '/__bench/config' && req.method === 'POST') {
      const next = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Partial<UpstreamBehaviour>;
      Object.assign(behaviour, next);
      if (next.seed !== undefined) random = seededRandom(next.seed);
      return send(behaviour);
    }
    res.writeHead(404).end();
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: baseUrl,
    dataset,
    behaviour,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function emptyStats(): UpstreamStats {
  return { calls: 0, badAuth: 0, byRoute: {}, byStatus: {}, faults: { http500: 0, drop: 0, malformed: 0, slow: 0 } };
}

function headerValue(value: string | string[] | undefined): string {
  return Array.isArray(value) ? (value[0] ?? '') : (value ?? '');
}

function errorBody(type: string, code: string, detail: string): Buffer {
  return Buffer.from(JSON.stringify({ type, code, detail, attr: null }));
}

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const notFound = (): Answer => ({ status: 404, route: 'not-found', body: errorBody('invalid_request', 'not_found', 'Not found.') });

/** The REST answer for one GET: a DRF page of a list, or one record. */
function render(dataset: Dataset, baseUrl: string, url: string): Answer {
  const [pathname = '/', search = ''] = url.split('?');
  const query = new URLSearchParams(search);
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] !== 'api' || !pathname.endsWith('/')) return notFound();

  const page = (route: string, records: readonly unknown[]): Answer => {
    const limit = positive(query.get('limit'), DEFAULT_LIMIT);
    const offset = positive(query.get('offset'), 0);
    const link = (at: number) => `${baseUrl}${pathname}?limit=${limit}&offset=${at}`;
    const body = {
      count: records.length,
      next: offset + limit < records.length ? link(offset + limit) : null,
      previous: offset > 0 ? link(Math.max(0, offset - limit)) : null,
      results: records.slice(offset, offset + limit),
    };
    return { status: 200, route, body: json(body) };
  };
  const one = (route: string, record: unknown): Answer => (record ? { status: 200, route, body: json(record) } : notFound());

  if (parts[1] === 'organizations') {
    if (parts.length === 2) return page('/api/organizations/', dataset.organizations);
    const org = dataset.organizations.find((o) => o.id === parts[2]);
    const lists = org && dataset.lists.get(org.id);
    if (!org || !lists) return notFound();
    if (parts.length === 3) return one('/api/organizations/:id/', org);
    const list = parts[3] as string;
    if (!LIST_SEGMENTS.has(list)) return notFound();
    const records = lists[list as OrgList];
    if (parts.length === 4) return page(`/api/organizations/:id/${list}/`, records);
    if (parts.length === 5) return one(`/api/organizations/:id/${list}/:id/`, records.find((r) => String(r.id) === parts[4]));
    return notFound();
  }
  if (parts[1] === 'projects' && parts[3] === 'surveys') {
    const surveys = dataset.surveys.get(parts[2] as string);
    if (!surveys) return notFound();
    if (parts.length === 4) return page('/api/projects/:id/surveys/', surveys);
    if (parts.length === 5) return one('/api/projects/:id/surveys/:id/', surveys.find((s) => s.id === parts[4]));
  }
  return notFound();
}

function positive(raw: string | null, fallback: number): number {
  const value = raw === null ? Number.NaN : Number(raw);
  return Number.isInteger(value) && value >= 0 ? value : fallback;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      key: { type: 'string' },
      port: { type: 'string', default: '0' },
      'delay-ms': { type: 'string', default: '0' },
      'fault-rate': { type: 'string', default: '0' },
      'slow-ms': { type: 'string', default: '1500' },
      seed: { type: 'string', default: '1' },
    },
  });
  if (!values.key) throw new Error('--key is required');
  const upstream = await startFakeUpstream({
    key: values.key,
    port: Number(values.port),
    delayMs: Number(values['delay-ms']),
    faultRate: Number(values['fault-rate']),
    slowMs: Number(values['slow-ms']),
    seed: Number(values.seed),
  });
  console.log(JSON.stringify({ url: upstream.url }));
  const stop = () => void upstream.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
