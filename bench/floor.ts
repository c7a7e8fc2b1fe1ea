// The floor the gateway is measured against: a plain HTTP server that, per request, makes the
// dashboard's 21 REST calls the way the gateway's REST client does (one keep-alive undici Pool,
// `Authorization: Bearer <caller's key>`, trailing-slash paths, `?limit=&offset=`; organizations
// first, then the 4 lists of every organization at once) and answers the JSON the gateway's
// GraphQL response has, field for field, global ids included. No GraphQL anywhere.
// Its pool has no connection limit (undici's default): every call of every dashboard is in flight at
// once, so at 200 ms per upstream call a dashboard takes two round trips, whatever the load.
//   tsx bench/floor.ts --upstream http://127.0.0.1:PORT [--port 0] [--connections N (0: no limit)]
// (the benchmarks run it compiled: `startFloorProcess` in lib/processes.ts)
// prints one JSON line {"url": ...} once listening; POST anything to /graphql.
import { randomUUID } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import type { BatchExport, Domain, Member, Organization, Page, PipelineItem } from '../src/wire/rest-types.ts';
import { globalId } from './lib/queries.ts';

export interface FloorOptions {
  upstreamUrl: string;
  port?: number;
  host?: string;
  /** Upstream connections at most. @default undefined: no limit */
  connections?: number;
  /** @default 10000, the gateway's UPSTREAM_TIMEOUT_MS default */
  timeoutMs?: number;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const USER_AGENT = 'org-graphql-gateway-floor/0.1 (+undici)';

/**
 * The floor's upstream calls: a GET of one list's first page through one plain undici Pool, its body
 * read as text and parsed.
 */
export function createFloorCalls(upstreamUrl: string, options: Pick<FloorOptions, 'connections' | 'timeoutMs'> = {}) {
  const origin = new URL(upstreamUrl).origin;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pool = new Pool(origin, { connections: options.connections || null });

  async function get<T>(key: string, requestId: string, path: string, limit: number): Promise<T> {
    const response = await pool.request({
      origin,
      path: `${path}?limit=${limit}&offset=0`,
      method: 'GET',
      headers: { authorization: `Bearer ${key}`, accept: 'application/json', 'user-agent': USER_AGENT, 'x-request-id': requestId },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const text = await response.body.text();
    if (response.statusCode < 200 || response.statusCode >= 300) throw new Error(`upstream ${response.statusCode} on ${path}`);
    return JSON.parse(text) as T;
  }

  return { get, close: () => pool.close() };
}

/** Where a dashboard's pages come from: the floor's own GETs. */
export interface DashboardPages {
  organizations(limit: number): Promise<Page<Organization>>;
  batchExports(organizationId: string, limit: number): Promise<Page<BatchExport>>;
  domains(organizationId: string, limit: number): Promise<Page<Domain>>;
  members(organizationId: string, limit: number): Promise<Page<Member>>;
  pipelineDestinations(organizationId: string, limit: number): Promise<Page<PipelineItem>>;
}

/**
 * The dashboard's answer, field for field the gateway's: organizations first, then the 4 lists of
 * every organization at once, with the query's page sizes. `idOf` encodes the global ids.
 */
export async function dashboardAnswer(pages: DashboardPages, idOf: (typename: string, ...parts: (string | number)[]) => string) {
  const orgs = await pages.organizations(5);
  const nodes = await Promise.all(
    orgs.results.map(async (org) => {
      const [exports, domains, members, destinations] = await Promise.all([
        pages.batchExports(org.id, 10),
        pages.domains(org.id, 5),
        pages.members(org.id, 10),
        pages.pipelineDestinations(org.id, 10),
      ]);
      return {
        id: idOf('Organization', org.id),
        name: org.name,
        batchExports: {
          nodes: exports.results.map((e) => ({
            id: idOf('BatchExport', org.id, e.id),
            name: e.name,
            paused: e.paused,
            interval: e.interval,
          })),
        },
        domains: { nodes: domains.results.map((d) => ({ id: idOf('Domain', org.id, d.id), domain: d.domain })) },
        members: {
          nodes: members.results.map((m) => ({
            id: idOf('Member', org.id, m.id, m.user?.uuid ?? ''),
            user: { email: m.user.email },
          })),
        },
        pipelineDestinations: {
          nodes: destinations.results.map((d) => ({ id: idOf('PipelineDestination', org.id, d.id), name: d.name })),
        },
      };
    }),
  );
  return { data: { organizations: { nodes } } };
}

/**
 * Sends what `answer` resolves to as the JSON answer (502 with an `UPSTREAM_ERROR` if it throws) and
 * returns the status sent.
 */
export async function sendAnswer(res: ServerResponse, requestId: string, answer: () => Promise<unknown>): Promise<number> {
  let status = 200;
  let body: unknown;
  try {
    body = await answer();
  } catch (error) {
    status = 502;
    body = { errors: [{ message: String(error), extensions: { code: 'UPSTREAM_ERROR' } }] };
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'x-request-id': requestId,
  });
  res.end(text);
  return status;
}

export async function startFloor(options: FloorOptions) {
  const { get, close: closeCalls } = createFloorCalls(options.upstreamUrl, options);

  /** The floor's pages: one GET each, as the gateway's REST client sends it. */
  function pagesFor(key: string, requestId: string): DashboardPages {
    const list = <T>(organizationId: string, collection: string, limit: number) =>
      get<Page<T>>(key, requestId, `/api/organizations/${encodeURIComponent(organizationId)}/${collection}/`, limit);
    return {
      organizations: (limit) => get<Page<Organization>>(key, requestId, '/api/organizations/', limit),
      batchExports: (id, limit) => list<BatchExport>(id, 'batch_exports', limit),
      domains: (id, limit) => list<Domain>(id, 'domains', limit),
      members: (id, limit) => list<Member>(id, 'members', limit),
      pipelineDestinations: (id, limit) => list<PipelineItem>(id, 'pipeline_destinations', limit),
    };
  }

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const requestId = (req.headers['x-request-id'] as string | undefined) ?? randomUUID();
    await sendAnswer(res, requestId, async () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8')); // the request is read and parsed, as the gateway must
      const key = BEARER.exec(req.headers.authorization ?? '')?.[1];
      if (!key) return { errors: [{ message: 'No key.', extensions: { code: 'UNAUTHENTICATED' } }] };
      return dashboardAnswer(pagesFor(key, requestId), globalId);
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeCalls();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      upstream: { type: 'string' },
      port: { type: 'string', default: '0' },
      connections: { type: 'string', default: '0' },
    },
  });
  if (!values.upstream) throw new Error('--upstream is required');
  const floor = await startFloor({ upstreamUrl: values.upstream, port: Number(values.port), connections: Number(values.connections) });
  console.log(JSON.stringify({ url: floor.url }));
  const stop = () => void floor.close().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
