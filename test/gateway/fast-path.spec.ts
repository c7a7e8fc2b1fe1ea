// The fast path for known queries (src/known-queries) answers exactly as Yoga's pipeline does. Two
// gateways over HTTP on one reference API, one with the fast path and one without
// (FAST_PATH_MAX_QUERIES=0), are sent the same requests: status, headers, body, request log line
// and upstream calls must match, and the metric says which requests the fast path answered.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUpstreamBudget } from '../../src/budget-setting.ts';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway.ts';
import { startReferenceApi } from '../../src/reference-api/index.ts';
import { captureLogger } from '../ops/support.ts';
import { sendJson, startFakeUpstream } from '../support/fake-upstream.ts';
import { type ServedGateway, serveOverHttp } from '../support/http-server.ts';
import { metricValue } from '../support/metrics.ts';

type Api = Awaited<ReturnType<typeof startReferenceApi>>;
let api: Api;

interface Side {
  gateway: Gateway;
  served: ServedGateway;
  log: ReturnType<typeof captureLogger>;
}
let fast: Side;
let pipeline: Side;

async function side(options: Partial<GatewayOptions>): Promise<Side> {
  const log = captureLogger('info');
  // A fan-out budget a query of 100 organizations' members is over (the dashboard's estimate is 5).
  const gateway = createGateway({ upstreamUrl: api.url, logger: log.logger, maxUpstreamCalls: 50, ...options });
  return { gateway, served: await serveOverHttp(gateway), log };
}

beforeAll(async () => {
  api = await startReferenceApi();
  fast = await side({});
  pipeline = await side({ fastPathMaxQueries: 0 });
});
afterAll(async () => {
  for (const { gateway, served } of [fast, pipeline]) {
    await served.close();
    await gateway.close();
  }
  await api.close();
});

const DASHBOARD = `query Dashboard {
  organizations(first: 2) {
    totalCount
    nodes { id name domains(first: 3) { nodes { domain } } members(first: 2) { nodes { level user { email } } } }
  }
}`;

interface Sent {
  body?: unknown;
  headers?: Record<string, string>;
  /** After `/graphql`. */
  path?: string;
  /** A GET with these URL parameters instead of a POST. */
  get?: Record<string, string>;
}

let sentCount = 0;
/** One request to one side: its answer and the upstream calls it made, its log line's fields that do not vary by run. */
async function send({ gateway, served, log }: Side, { body, headers = {}, path = '', get }: Sent) {
  api.clearRequests();
  const linesBefore = log.lines.length;
  const sentHeaders = { authorization: `Bearer ${api.keys.demo}`, 'x-request-id': `r${++sentCount}` };
  const response = get
    ? await fetch(`${served.url}${path}?${new URLSearchParams(get)}`, { headers: { ...sentHeaders, ...headers } })
    : await fetch(`${served.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...sentHeaders, ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
  const received = await response.text();
  expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength(received)));
  // What varies by run: the date, the request id (checked below) and each upstream call's duration (x-debug-upstream).
  const text = received.replace(/"durationMs":[\d.]+/g, '"durationMs":0');
  const varying = ['date', 'x-request-id', 'content-length'];
  const answeredHeaders = Object.fromEntries([...response.headers].filter(([name]) => !varying.includes(name)));
  const calls = api.requests.map(({ method, path, query, headers: sentHeaders }) => ({
    method,
    path,
    query,
    authorization: sentHeaders.authorization,
  }));
  const line = log.lines.slice(linesBefore).find((entry) => entry.msg === 'graphql request');
  expect(line?.requestId).toBe(`r${sentCount}`);
  const summary = { ...line, time: undefined, pid: undefined, requestId: undefined, durationMs: undefined };
  return {
    status: response.status,
    headers: answeredHeaders,
    text,
    calls,
    summary,
    fastPath: await metricValue(gateway, 'gateway_fast_path_requests_total'),
  };
}

/**
 * Sends the request to both sides, `times` times each, and expects the same answers; returns how
 * many the fast path answered. `sides`: another pair, configured alike but for the fast path.
 */
async function expectSameAnswers(request: Sent, times = 3, sides = { fast, pipeline }): Promise<number> {
  const before = await metricValue(sides.fast.gateway, 'gateway_fast_path_requests_total');
  for (let i = 0; i < times; i++) {
    const viaFastSide = await send(sides.fast, request);
    const viaPipeline = await send(sides.pipeline, request);
    expect({ ...viaFastSide, fastPath: undefined }).toEqual({ ...viaPipeline, fastPath: undefined });
    expect(viaPipeline.fastPath).toBe(0);
  }
  return (await metricValue(sides.fast.gateway, 'gateway_fast_path_requests_total')) - before;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const byId = (id: string, version = 1) => ({ extensions: { persistedQuery: { version, sha256Hash: id } } });

/** Two more gateways, alike but for the fast path; closed after `run`. */
async function withSides(options: Partial<GatewayOptions>, run: (sides: { fast: Side; pipeline: Side }) => Promise<void>) {
  const sides = { fast: await side(options), pipeline: await side({ ...options, fastPathMaxQueries: 0 }) };
  try {
    await run(sides);
  } finally {
    for (const { gateway, served } of [sides.fast, sides.pipeline]) {
      await served.close();
      await gateway.close();
    }
  }
}

describe('a known query, sent again', () => {
  it('is answered by the fast path from its second time on, exactly as by the pipeline', async () => {
    expect(await expectSameAnswers({ body: { query: DASHBOARD } })).toBe(2);
  });

  it.each([
    ['no Accept header', {}],
    ['Accept: application/json', { accept: 'application/json' }],
    ['Accept: application/graphql-response+json', { accept: 'application/graphql-response+json' }],
    ['Accept: */*', { accept: '*/*' }],
    ['no key (every field UNAUTHENTICATED)', { authorization: '' }],
    ['a trace to continue', { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }],
    ['Content-Type with a charset', { 'content-type': 'application/json; charset=utf-8' }],
  ])('with %s', async (_, headers) => {
    expect(await expectSameAnswers({ body: { query: DASHBOARD }, headers })).toBe(3);
  });

  it('from a browser (CORS, any origin allowed): with the CORS headers the pipeline adds', async () => {
    const origin = 'https://app.example';
    expect(await expectSameAnswers({ body: { query: DASHBOARD }, headers: { origin } })).toBe(3);
    const answer = await send(fast, { body: { query: DASHBOARD }, headers: { origin } });
    expect(answer.headers).toMatchObject({
      'access-control-allow-origin': origin,
      'access-control-expose-headers': 'x-request-id, retry-after, idempotent-replayed',
      vary: 'Origin',
    });
    // A non-preflight request that carries a preflight's header is answered as Yoga answers it too.
    const asked = { origin, 'access-control-request-headers': 'authorization, content-type' };
    expect(await expectSameAnswers({ body: { query: DASHBOARD }, headers: asked })).toBe(3);
  });

  it('from a browser, with CORS_ORIGINS a list: a listed origin, one not listed', async () => {
    await withSides({ corsOrigins: ['https://app.example', 'https://admin.example'] }, async (listed) => {
      expect(await expectSameAnswers({ body: { query: DASHBOARD }, headers: { origin: 'https://admin.example' } }, 3, listed)).toBe(2);
      expect(await expectSameAnswers({ body: { query: DASHBOARD }, headers: { origin: 'https://evil.example' } }, 3, listed)).toBe(3);
      const refused = await send(listed.fast, { body: { query: DASHBOARD }, headers: { origin: 'https://evil.example' } });
      expect(refused.headers['access-control-allow-origin']).toBe('null');
    });
  });

  it('with an operation name, empty variables and a null operation name alike', async () => {
    expect(await expectSameAnswers({ body: { query: DASHBOARD, operationName: 'Dashboard', variables: {} } })).toBe(2);
    expect(await expectSameAnswers({ body: { query: DASHBOARD, operationName: null, variables: null } })).toBe(3);
  });

  it('with errors in its data: a record that is not there', async () => {
    const query = '{ organization(databaseId: "00000000-0000-4000-8000-000000000000") { name } organizations(first: 1) { totalCount } }';
    expect(await expectSameAnswers({ body: { query } })).toBe(2);
  });

  it('picks the named operation of a document with several', async () => {
    const query = `${DASHBOARD}\nquery Count { organizations(first: 1) { totalCount } }`;
    expect(await expectSameAnswers({ body: { query, operationName: 'Count' } })).toBe(2);
    expect(await expectSameAnswers({ body: { query, operationName: 'Dashboard' } })).toBe(2);
  });
});

describe('a known query sent by GET', () => {
  it('is answered by the fast path, with its parameters read from the URL as Yoga reads them', async () => {
    expect(await expectSameAnswers({ get: { query: DASHBOARD } })).toBe(3);
    expect(await expectSameAnswers({ get: { query: DASHBOARD, operationName: 'Dashboard', variables: '{}', other: 'x' } })).toBe(3);
    expect(await expectSameAnswers({ get: { query: DASHBOARD }, headers: { origin: 'https://app.example', accept: '*/*' } })).toBe(3);
  });

  it.each([
    ['variables', { query: 'query ($n: Int!) { organizations(first: $n) { totalCount } }', variables: '{"n":1}' }, {}],
    ['variables that are not JSON', { query: DASHBOARD, variables: '{' }, {}],
    ['extensions that are not JSON', { query: DASHBOARD, extensions: '{' }, {}],
    ['a mutation', { query: 'mutation { createOrganization(input: { name: "" }) { organization { name } } }' }, {}],
    ['no query', { operationName: 'Dashboard' }, {}],
  ])('leaves to the pipeline a GET with %s', async (_, get, headers) => {
    expect(await expectSameAnswers({ get, headers })).toBe(0);
  });

  it('leaves GraphiQL to the pipeline: a browser asking for HTML', async () => {
    const before = await metricValue(fast.gateway, 'gateway_fast_path_requests_total');
    const response = await fetch(`${fast.served.url}?${new URLSearchParams({ query: DASHBOARD })}`, { headers: { accept: 'text/html' } });
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    await response.text();
    expect(await metricValue(fast.gateway, 'gateway_fast_path_requests_total')).toBe(before);
  });

  it('leaves every GET to the pipeline with CSRF prevention, which asks a GET for a header', async () => {
    await withSides({ csrfPrevention: true }, async (sides) => {
      expect(await expectSameAnswers({ body: { query: DASHBOARD } }, 3, sides)).toBe(2);
      expect(await expectSameAnswers({ get: { query: DASHBOARD } }, 2, sides)).toBe(0);
      expect(await expectSameAnswers({ get: { query: DASHBOARD }, headers: { 'x-graphql-csrf': '1' } }, 2, sides)).toBe(0);
      expect((await send(sides.fast, { get: { query: DASHBOARD } })).status).toBe(403);
    });
  });
});

describe('requests the fast path leaves to the pipeline', () => {
  it.each([
    ['variables', { query: 'query ($n: Int!) { organizations(first: $n) { totalCount } }', variables: { n: 1 } }, {}],
    ['a mutation', { query: 'mutation { createOrganization(input: { name: "" }) { organization { name } } }' }, {}],
    ['extensions', { query: DASHBOARD, extensions: {} }, {}],
    ['an unknown parameter', { query: DASHBOARD, unknown: 1 }, {}],
    ['an operation name that is not a name', { query: DASHBOARD, operationName: 'Dash board' }, {}],
    ['x-debug-upstream', { query: DASHBOARD }, { 'x-debug-upstream': '1' }],
    ['Idempotency-Key', { query: DASHBOARD }, { 'idempotency-key': 'k-1' }],
    ['an Accept Yoga negotiates', { query: DASHBOARD }, { accept: 'application/json, text/plain;q=0.9' }],
    ['a query that fails validation', { query: '{ organizations(first: 1) { nope } }' }, {}],
    [
      'a query over the fan-out budget',
      { query: '{ organizations(first: 100) { nodes { members(first: 100) { nodes { level } } } } }' },
      {},
    ],
  ])('%s', async (_, body, headers) => {
    expect(await expectSameAnswers({ body, headers })).toBe(0);
  });

  it('another URL Yoga serves GraphQL at', async () => {
    expect(await expectSameAnswers({ body: { query: DASHBOARD }, path: '/' })).toBe(0);
    expect(await expectSameAnswers({ body: { query: DASHBOARD }, path: '?x=1' })).toBe(0);
  });

  it('a body that is not JSON, or not an object', async () => {
    expect(await expectSameAnswers({ body: `{"query": ${JSON.stringify(DASHBOARD)}` })).toBe(0);
    expect(await expectSameAnswers({ body: [{ query: DASHBOARD }] })).toBe(0);
    for (const body of ['null', '{}', '[]', '"query"', '1']) expect(await expectSameAnswers({ body })).toBe(0);
  });
});

describe('once shutting down', () => {
  it('leaves every request to the pipeline, whose answers close their connections', async () => {
    const shutting = await side({});
    try {
      const request = { body: { query: DASHBOARD } };
      await send(shutting, request);
      expect((await send(shutting, request)).fastPath).toBe(1);
      shutting.gateway.beginShutdown();
      const answer = await send(shutting, request);
      expect(answer).toMatchObject({ status: 200, headers: { connection: 'close' }, fastPath: 1 });
    } finally {
      await shutting.served.close();
      await shutting.gateway.close();
    }
  });
});

describe('automatic persisted queries (APQ, the default)', () => {
  const query = 'query Registered { organizations(first: 1) { totalCount nodes { name } } }';

  it('a query registered with its hash is answered by the fast path when sent by its hash alone', async () => {
    // The registration (text and hash) is the APQ plugin's: it checks the hash and stores the text.
    expect(await expectSameAnswers({ body: { query, ...byId(sha256(query)) } }, 1)).toBe(0);
    expect(await expectSameAnswers({ body: byId(sha256(query)) })).toBe(3);
    // By GET, as Apollo's persisted-query link sends it with useGETForHashedQueries.
    expect(await expectSameAnswers({ get: { extensions: JSON.stringify(byId(sha256(query)).extensions) } })).toBe(3);
    // Known by text and operation name: with its name, once more through the pipeline first.
    expect(await expectSameAnswers({ body: { ...byId(sha256(query)), operationName: 'Registered', variables: {} } })).toBe(2);
  });

  it.each([
    ['a hash never registered (PersistedQueryNotFound)', byId(sha256('{ organizations(first: 3) { totalCount } }'))],
    ['another version of the protocol', byId(sha256(query), 2)],
    ['the text again with its hash (a registration)', { query, ...byId(sha256(query)) }],
    ['the text with a hash that is not its own (PersistedQueryMismatch)', { query, ...byId(sha256('other')) }],
    ['more beside the id', { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(query) }, other: 1 } }],
  ])('leaves to the pipeline %s', async (_, body) => {
    expect(await expectSameAnswers({ body })).toBe(0);
  });
});

describe("PERSISTED_OPERATIONS: only a manifest's operations run", () => {
  const manifest = new Map([
    [sha256(DASHBOARD), DASHBOARD],
    [
      sha256('query One($n: Int!) { organizations(first: $n) { totalCount } }'),
      'query One($n: Int!) { organizations(first: $n) { totalCount } }',
    ],
  ]);

  it('a listed operation sent by its id is answered by the fast path from its second time on', async () => {
    await withSides({ persistedOperations: manifest }, async (sides) => {
      expect(await expectSameAnswers({ body: byId(sha256(DASHBOARD)) }, 3, sides)).toBe(2);
      expect(await expectSameAnswers({ body: byId(`sha256:${sha256(DASHBOARD)}`) }, 3, sides)).toBe(3);
    });
  });

  it('refuses the text of a listed, known operation as the pipeline does, and an id not listed', async () => {
    await withSides({ persistedOperations: manifest }, async (sides) => {
      expect(await expectSameAnswers({ body: byId(sha256(DASHBOARD)) }, 2, sides)).toBe(1);
      expect(await expectSameAnswers({ body: { query: DASHBOARD } }, 3, sides)).toBe(0);
      const refused = await send(sides.fast, { body: { query: DASHBOARD } });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('PERSISTED_QUERY_ONLY');
      expect(await expectSameAnswers({ body: byId(sha256('{ __typename }')) }, 3, sides)).toBe(0);
      // An operation with variables is never known: always the pipeline's.
      const withVariables = [...manifest.keys()][1] as string;
      expect(await expectSameAnswers({ body: { ...byId(withVariables), variables: { n: 1 } } }, 3, sides)).toBe(0);
    });
  });
});

describe('with CACHE and UPSTREAM_BUDGET', () => {
  it('answers from the cache as the pipeline does, and writes its own misses for the next request', async () => {
    await withSides({ cache: { store: 'memory', ttlMs: 1000 } }, async (sides) => {
      expect(await expectSameAnswers({ body: { query: DASHBOARD } }, 3, sides)).toBe(2);
      // Once the answers the pipeline cached expired, the fast path's misses are written by it.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(await expectSameAnswers({ body: { query: DASHBOARD } }, 2, sides)).toBe(2);
      const answer = await send(sides.fast, { body: { query: DASHBOARD } });
      expect(answer.calls).toEqual([]);
      expect(answer.summary).toMatchObject({ upstreamCalls: 0, cacheHits: 5 });
    });
  });

  it('reserves the budget as the pipeline does, and refuses past it with the same RATE_LIMITED answer', async () => {
    // The dashboard here may make 5 calls: the first runs under 5 a minute, the next are refused.
    await withSides({ upstreamBudget: parseUpstreamBudget('5/minute') }, async (sides) => {
      expect(await expectSameAnswers({ body: { query: DASHBOARD } }, 3, sides)).toBe(2);
      const refused = await send(sides.fast, { body: { query: DASHBOARD } });
      expect(refused.text).toContain('"code":"RATE_LIMITED"');
      expect(refused.calls).toEqual([]);
      expect(refused.summary).toMatchObject({ outcome: 'error', errorCodes: ['RATE_LIMITED'] });
      // The report of what is left is the budget plugin's to add.
      expect(await expectSameAnswers({ body: { query: DASHBOARD }, headers: { 'x-upstream-budget': '1' } }, 2, sides)).toBe(0);
    });
  });

  it('with both: cache hits cost no budget on either side', async () => {
    await withSides({ cache: { store: 'memory' }, upstreamBudget: parseUpstreamBudget('12/minute') }, async (sides) => {
      expect(await expectSameAnswers({ body: { query: DASHBOARD } }, 4, sides)).toBe(3);
      expect((await send(sides.fast, { body: { query: DASHBOARD } })).status).toBe(200);
    });
  });
});

describe('FAST_PATH_MAX_QUERIES', () => {
  it('keeps that many known queries, the least recently used dropped first', async () => {
    const small = await side({ fastPathMaxQueries: 2 });
    const query = (first: number) => ({ body: { query: `{ organizations(first: ${first}) { totalCount } }` } });
    const fastPathAnswered = async (first: number) => (await send(small, query(first))).fastPath;
    try {
      await send(small, query(1));
      await send(small, query(2));
      expect(await fastPathAnswered(1)).toBe(1); // known: 1 and 2; 1 used last
      await send(small, query(3)); // known: 1 and 3 (2 dropped)
      expect(await fastPathAnswered(3)).toBe(2);
      expect(await fastPathAnswered(1)).toBe(3);
      expect(await fastPathAnswered(2)).toBe(3); // through the pipeline, known again: 3 dropped (1 was used after it)
      expect(await fastPathAnswered(2)).toBe(4);
      expect(await fastPathAnswered(1)).toBe(5);
      expect(await fastPathAnswered(3)).toBe(5); // through the pipeline: 2 dropped
    } finally {
      await small.served.close();
      await small.gateway.close();
    }
  });
});

describe('the caller leaving while the fast path runs a query', () => {
  it("ends the request's calls not yet sent, as the pipeline does: only the call already on the wire reached the upstream", async () => {
    // One call at a time: the second of the two lookups waits behind the first, which the upstream
    // holds. Were the caller's leaving not seen, the held call would end at its own limit (300 ms)
    // and the second would be sent then, long before the request's deadline (10 s).
    const upstream = await startFakeUpstream();
    let holding = false;
    upstream.handle((req, res) => (holding ? undefined : sendJson(res, 200, { id: req.path.split('/')[3], name: 'Org' })));
    const options = { upstreamUrl: upstream.url, upstreamConcurrencyPerRequest: 1, upstreamTimeoutMs: 300, requestDeadlineMs: 10_000 };
    const sides = [createGateway(options), createGateway({ ...options, fastPathMaxQueries: 0 })];
    const served = await Promise.all(sides.map((gateway) => serveOverHttp(gateway)));
    const ids = ['0f000000-0000-4000-8000-00000000000a', '0f000000-0000-4000-8000-00000000000b'];
    const query = `{ a: organization(databaseId: "${ids[0]}") { name } b: organization(databaseId: "${ids[1]}") { name } }`;
    const post = (url: string, signal?: AbortSignal) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer phx_leaving' },
        body: JSON.stringify({ query }),
        signal,
      });
    try {
      const callsAfterLeaving = [];
      for (const { url } of served) {
        expect(await (await post(url)).json()).toEqual({ data: { a: { name: 'Org' }, b: { name: 'Org' } } }); // known from now on
        holding = true;
        const before = upstream.requests.length;
        const caller = new AbortController();
        const answer = post(url, caller.signal).catch(() => 'left');
        while (upstream.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 5));
        caller.abort();
        expect(await answer).toBe('left');
        await new Promise((resolve) => setTimeout(resolve, 600)); // past the held call's own limit
        callsAfterLeaving.push(upstream.requests.slice(before).map(({ path }) => path));
        holding = false;
      }
      const onlyTheFirst = [`/api/organizations/${ids[0]}/`];
      expect(callsAfterLeaving).toEqual([onlyTheFirst, onlyTheFirst]);
      expect(await Promise.all(sides.map((gateway) => metricValue(gateway, 'gateway_fast_path_requests_total')))).toEqual([1, 0]);
    } finally {
      for (const [i, gateway] of sides.entries()) {
        await served[i]?.close();
        await gateway.close();
      }
      await upstream.close();
    }
  });
});

describe('shutdown beginning while the fast path runs a query', () => {
  it('closes the connection of its answer, as the pipeline does', async () => {
    const upstream = await startFakeUpstream();
    const held: ServerResponse[] = [];
    let holding = false;
    upstream.handle((_req, res) => (holding ? held.push(res) : sendJson(res, 200, { count: 0, next: null, previous: null, results: [] })));
    const gateway = createGateway({ upstreamUrl: upstream.url });
    const served = await serveOverHttp(gateway);
    const post = () =>
      fetch(served.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer phx_shutdown' },
        body: JSON.stringify({ query: '{ organizations(first: 1) { totalCount } }' }),
      });
    try {
      await (await post()).text();
      holding = true;
      const answer = post();
      while (held.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      gateway.beginShutdown();
      for (const res of held) sendJson(res, 200, { count: 0, next: null, previous: null, results: [] });
      const response = await answer;
      expect({ status: response.status, connection: response.headers.get('connection'), body: await response.json() }).toEqual({
        status: 200,
        connection: 'close',
        body: { data: { organizations: { totalCount: 0 } } },
      });
      expect(await metricValue(gateway, 'gateway_fast_path_requests_total')).toBe(1);
    } finally {
      await served.close();
      await gateway.close();
      await upstream.close();
    }
  });
});
