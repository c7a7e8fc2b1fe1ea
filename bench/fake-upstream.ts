// A fast fake of the REST upstream (node:http): serves the benchmark dataset in the REST shapes the
// gateway reads, with an optional fixed delay and injected faults, and counts what it is sent.
//   tsx bench/fake-upstream.ts --key <key> [--key <another key> ...] [--port 0] [--delay-ms 0] [--fault-rate 0] [--slow-ms 1500] [--seed 1]
// prints one JSON line {"url": ...} once listening. Control endpoints (not under /api):
//   GET /__bench/stats[?ids=1]  counters since the last reset (with calls and writes per x-request-id)
//   POST /__bench/reset         zero the counters
//   POST /__bench/config        {"delayMs", "faultRate", "faultKinds", "slowMs", "dripIntervalMs", "seed"}
// Every key sees the same data. Writes: POST .../batch_exports/:id/pause/ and .../unpause/ set the
// export's `paused` and answer it (the chaos run's and the polled dashboard's mutations); every write
// is counted per x-request-id, so a write sent twice shows.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildDataset, type Dataset, type OrgList } from './lib/dataset.ts';
import { type Random, seededRandom } from './lib/prng.ts';

export const FAULT_KINDS = ['http500', 'drop', 'malformed', 'slow', 'drip', 'wrongShape'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
/** What `bench:load` injects: failures of the connection or the server, not of the answer's shape. */
export const CLASSIC_FAULTS: readonly FaultKind[] = ['http500', 'drop', 'malformed', 'slow'];

/**
 * Well-formed JSON that is not what the REST interface answers (issue 12, section 6), each made from
 * the right answer: the gateway must turn every one into UPSTREAM_ERROR on the field that asked.
 */
const WRONG_SHAPES = [
  'resultsObject',
  'resultsNull',
  'resultsString',
  'emptyArrayBody',
  'nullBody',
  'numberBody',
  'htmlPage',
  'emptyBody',
  'noContent',
  'idNull',
  'countMissing',
  'countNegative',
  'teamsString',
  'deepJson',
] as const;
type WrongShape = (typeof WRONG_SHAPES)[number];
const DEEP = '__deep_json__';
/** A JSON value nested 5,000 arrays deep. */
const DEEP_JSON_TEXT = `${'['.repeat(5000)}"LEAK"${']'.repeat(5000)}`;

export interface UpstreamBehaviour {
  /** Fixed delay before every answer. @default 0 */
  delayMs: number;
  /** Share of /api answers replaced by a fault, picked from `faultKinds`. @default 0 */
  faultRate: number;
  /** The faults to pick from. @default CLASSIC_FAULTS (500, dropped connection, malformed JSON, a slow answer) */
  faultKinds: FaultKind[];
  /** How late a "slow" fault answers; set it past the gateway's UPSTREAM_TIMEOUT_MS. @default 1500 */
  slowMs: number;
  /** A "drip" fault sends 200 and its headers at once, then one byte of the body every this many ms. @default 200 */
  dripIntervalMs: number;
  /** Seed of the PRNG that picks the faults. @default 1 */
  seed: number;
}

export interface FakeUpstreamOptions extends Partial<UpstreamBehaviour> {
  /** The bearer keys a call may carry (`Authorization: Bearer <key>`); others get a 401. */
  keys: readonly string[];
  port?: number;
  host?: string;
}

export interface UpstreamStats {
  /** Requests to /api since the last reset. */
  calls: number;
  /** Of those, the ones without exactly `Authorization: Bearer <one of the keys>`. */
  badAuth: number;
  byRoute: Record<string, number>;
  byStatus: Record<string, number>;
  faults: Record<FaultKind, number>;
  /** Writes (POST, PATCH, DELETE) received, and how many request ids sent more than one. */
  writes: number;
  requestIdsWithRepeatedWrites: number;
  /** TCP connections accepted (the control endpoint's own included): a client whose pool keeps its sockets opens few. */
  connections: number;
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
    faultKinds: options.faultKinds ?? [...CLASSIC_FAULTS],
    slowMs: options.slowMs ?? 1500,
    dripIntervalMs: options.dripIntervalMs ?? 200,
    seed: options.seed ?? 1,
  };
  let random: Random = seededRandom(behaviour.seed);
  const expectedAuth = new Set(options.keys.map((key) => `Bearer ${key}`));
  let stats = emptyStats();
  let perRequestId = new Map<string, number>();
  let writesPerRequestId = new Map<string, number>();
  // Each distinct URL is rendered once, until a write changes its organization.
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

    if (!expectedAuth.has(req.headers.authorization ?? '')) {
      stats.badAuth += 1;
      return finish(res, {
        status: 401,
        route: 'unauthorized',
        body: errorBody('authentication_error', 'not_authenticated', 'Invalid personal API key.'),
      });
    }
    let answer: Answer;
    if (req.method === 'GET') {
      answer = answers.get(url) ?? rendered(url);
    } else {
      stats.writes += 1;
      const writes = (writesPerRequestId.get(requestId) ?? 0) + 1;
      writesPerRequestId.set(requestId, writes);
      if (writes === 2) stats.requestIdsWithRepeatedWrites += 1;
      answer = req.method === 'POST' ? renderAction(dataset, url) : methodNotAllowed(req.method ?? '');
      req.resume(); // the actions ignore their body
      if (answer.status === 200) forgetOrganization(url);
    }
    stats.byRoute[answer.route] = (stats.byRoute[answer.route] ?? 0) + 1;

    if (behaviour.faultRate > 0 && random() < behaviour.faultRate) {
      const kinds = behaviour.faultKinds.length > 0 ? behaviour.faultKinds : CLASSIC_FAULTS;
      const kind = kinds[Math.floor(random() * kinds.length)] as FaultKind;
      stats.faults[kind] += 1;
      return fault(kind, res, answer);
    }
    if (behaviour.delayMs > 0) setTimeout(() => finish(res, answer), behaviour.delayMs);
    else finish(res, answer);
  });
  server.keepAliveTimeout = 65_000;

  /** Drops the rendered answers of the organization a write changed. */
  function forgetOrganization(url: string): void {
    const prefix = url.split('/').slice(0, 4).join('/');
    for (const cached of answers.keys()) if (cached.startsWith(`${prefix}/`)) answers.delete(cached);
  }

  function rendered(url: string): Answer {
    const answer = render(dataset, baseUrl, url);
    answers.set(url, answer);
    return answer;
  }

  function finish(res: ServerResponse, answer: Answer): void {
    if (res.destroyed) return;
    stats.byStatus[answer.status] = (stats.byStatus[answer.status] ?? 0) + 1;
    res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': answer.body.length });
    res.end(answer.body);
  }

  function fault(kind: FaultKind, res: ServerResponse, answer: Answer): void {
    switch (kind) {
      case 'http500':
        finish(res, { ...answer, status: 500, body: errorBody('server_error', 'error', 'A server error occurred.') });
        return;
      case 'drop':
        res.socket?.destroy(); // no answer at all: the connection just goes away
        return;
      case 'malformed': {
        const cut = answer.body.subarray(0, Math.max(1, Math.floor(answer.body.length / 2)));
        finish(res, { ...answer, status: 200, body: cut });
        return;
      }
      case 'slow':
        setTimeout(() => finish(res, answer), behaviour.slowMs);
        return;
      case 'drip':
        drip(res, answer);
        return;
      case 'wrongShape': {
        const shape = WRONG_SHAPES[Math.floor(random() * WRONG_SHAPES.length)] as WrongShape;
        sendRaw(res, wrongShape(shape, answer));
        return;
      }
    }
  }

  /** 200 and its headers at once, then the body one byte at a time until it is done or the gateway hangs up. */
  function drip(res: ServerResponse, answer: Answer): void {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.body.length });
    let sent = 0;
    const timer = setInterval(() => {
      if (res.destroyed || sent >= answer.body.length) {
        clearInterval(timer);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(answer.body.subarray(sent, sent + 1));
      sent += 1;
    }, behaviour.dripIntervalMs);
    res.once('close', () => clearInterval(timer));
  }

  function sendRaw(res: ServerResponse, raw: RawAnswer): void {
    if (res.destroyed) return;
    stats.byStatus[raw.status] = (stats.byStatus[raw.status] ?? 0) + 1;
    res.writeHead(raw.status, { 'content-type': raw.contentType, 'content-length': raw.body.length });
    res.end(raw.body);
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
      writesPerRequestId = new Map();
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

  server.on('connection', () => {
    stats.connections += 1;
  });
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
  const faults = Object.fromEntries(FAULT_KINDS.map((kind) => [kind, 0])) as Record<FaultKind, number>;
  return { calls: 0, badAuth: 0, byRoute: {}, byStatus: {}, faults, writes: 0, requestIdsWithRepeatedWrites: 0, connections: 0 };
}

interface RawAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

/** One wrong shape, made from the right answer (a list page or a record). */
function wrongShape(shape: WrongShape, answer: Answer): RawAnswer {
  const ok = (value: unknown): RawAnswer => ({ status: 200, contentType: 'application/json', body: json(value) });
  const right = JSON.parse(answer.body.toString('utf8') || 'null') as Record<string, unknown> | null;
  const isPage = right !== null && Array.isArray(right.results);
  const records = (isPage ? (right.results as Record<string, unknown>[]) : [right ?? {}]).map((record) => ({ ...record }));
  const withRecords = (next: Record<string, unknown>[]) => ok(isPage ? { ...right, results: next } : next[0]);
  switch (shape) {
    case 'resultsObject':
      return ok({ ...right, results: {} });
    case 'resultsNull':
      return ok({ ...right, results: null });
    case 'resultsString':
      return ok({ ...right, results: '../../x' });
    case 'emptyArrayBody':
      return ok([]);
    case 'nullBody':
      return ok(null);
    case 'numberBody':
      return ok(42);
    case 'htmlPage':
      return {
        status: 200,
        contentType: 'text/html',
        body: Buffer.from('<!doctype html><title>Bad gateway</title><p>upstream proxy page</p>'),
      };
    case 'emptyBody':
      return { status: 200, contentType: 'application/json', body: Buffer.alloc(0) };
    case 'noContent':
      return { status: 204, contentType: 'application/json', body: Buffer.alloc(0) };
    case 'idNull':
      return withRecords(records.map((record, i) => (i === 0 ? { ...record, id: null } : record)));
    case 'countMissing':
      return isPage ? ok({ ...right, count: undefined }) : ok({ ...right, id: '../../x' });
    case 'countNegative':
      return isPage ? ok({ ...right, count: -5 }) : ok({ ...right, id: 42 });
    case 'teamsString':
      return withRecords(
        records.map((record) => ('teams' in record ? { ...record, teams: 'abc' } : { ...record, name: { nested: 'LEAK' } })),
      );
    case 'deepJson': {
      // Built as text: JSON.stringify itself overflows the stack on a value this deep.
      const placeholder = withRecords(
        records.map((record) => ({ ...record, metadata: DEEP, config_schema: DEEP, destination: { type: 'S3', config: DEEP } })),
      );
      return { ...placeholder, body: Buffer.from(placeholder.body.toString('utf8').replaceAll(JSON.stringify(DEEP), DEEP_JSON_TEXT)) };
    }
  }
}

const methodNotAllowed = (method: string): Answer => ({
  status: 405,
  route: 'method',
  body: errorBody('invalid_request', 'method_not_allowed', `Method "${method}" not allowed.`),
});

/** POST .../batch_exports/:id/pause/ or unpause/: sets the export's `paused` and answers it, as the seed does. */
function renderAction(dataset: Dataset, url: string): Answer {
  const parts = (url.split('?')[0] ?? '').split('/').filter(Boolean).map(decodeURIComponent);
  const [api, organizations, orgId, batchExports, exportId, action] = parts;
  if (api !== 'api' || organizations !== 'organizations' || batchExports !== 'batch_exports' || parts.length !== 6) return notFound();
  if (action !== 'pause' && action !== 'unpause') return notFound();
  const record = dataset.lists.get(orgId ?? '')?.batch_exports.find((r) => r.id === exportId);
  if (!record) return notFound();
  (record as { paused?: boolean }).paused = action === 'pause';
  return { status: 200, route: `/api/organizations/:id/batch_exports/:id/${action}/`, body: json(record) };
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
    if (parts.length === 5)
      return one(
        `/api/organizations/:id/${list}/:id/`,
        records.find((r) => String(r.id) === parts[4]),
      );
    return notFound();
  }
  if (parts[1] === 'projects' && parts[3] === 'surveys') {
    const surveys = dataset.surveys.get(parts[2] as string);
    if (!surveys) return notFound();
    if (parts.length === 4) return page('/api/projects/:id/surveys/', surveys);
    if (parts.length === 5)
      return one(
        '/api/projects/:id/surveys/:id/',
        surveys.find((s) => s.id === parts[4]),
      );
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
      key: { type: 'string', multiple: true },
      port: { type: 'string', default: '0' },
      'delay-ms': { type: 'string', default: '0' },
      'fault-rate': { type: 'string', default: '0' },
      'slow-ms': { type: 'string', default: '1500' },
      seed: { type: 'string', default: '1' },
    },
  });
  if (!values.key?.length) throw new Error('--key is required');
  const upstream = await startFakeUpstream({
    keys: values.key,
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
