// Resilience against a misbehaving upstream the test controls: the circuit breakers fail fast while
// the upstream (or one read route) is down and probe it back, while no caller's own failures (its
// writes, its 4xx) pause anyone else's calls; the per-request deadline bounds a slow upstream, and
// one request runs only so many calls at once.
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway.ts';
import { createGatewayServer } from '../../src/http/server.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { globalId } from '../../src/schema/global-id.ts';
import { captureLogger } from '../ops/support.ts';
import { DEFAULTS } from '../support/defaults.ts';
import { refusedUrl } from '../support/refused-url.ts';
import { sendJson } from '../support/scripted-answers.ts';

const ORG = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbb1';
const page = (results: unknown[]) => ({ count: results.length, next: null, previous: null, results });

let upstream: ReferenceApi | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function setUp(options: Partial<GatewayOptions>) {
  upstream = await startReferenceApi();
  gateway = createGateway({ upstreamUrl: upstream.url, upstreamGetRetries: 0, ...options });
  return { upstream, gateway };
}

async function run(g: Gateway, query: string, key = 'phx_resilience_key') {
  const response = await g.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as { data?: any; errors?: any[] };
}

const DOMAINS_ROUTE = '/api/organizations/:organization_id/domains/';
const ORG_QUERY = `{ organization(databaseId: "${ORG}") { name domains { totalCount } batchExports { totalCount } } }`;
const WRITE = 'mutation { createOrganization(input: { name: "x" }) { __typename } }';
const PAUSED = { extensions: { code: 'UPSTREAM_ERROR' }, message: expect.stringMatching(/paused/) };
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the circuit breakers', () => {
  it("one key's failing writes (500) do not pause another key's reads", async () => {
    // The breaker's defaults: 10 calls in the window, 50% failures.
    const { upstream, gateway } = await setUp({});
    upstream.answerWith((req, res) => (req.method === 'POST' ? sendJson(res, 500, { detail: 'boom' }) : sendJson(res, 200, page([]))));

    for (let i = 0; i < 12; i++) {
      const write = await run(
        gateway,
        'mutation { createOrganization(input: { name: "x" }) { __typename } }',
        'phx_key_of_the_failing_caller',
      );
      expect(write.errors?.[0]?.extensions).toMatchObject({ code: 'UPSTREAM_ERROR', upstreamStatus: 500 });
    }
    const read = await run(gateway, '{ organizations { totalCount } }', 'phx_key_of_another_caller');
    expect(read).toEqual({ data: { organizations: { totalCount: 0 } } });
    expect(gateway.transport.circuits()).toEqual([]);
    expect(upstream.requests.map((r) => r.method)).toEqual([...Array(12).fill('POST'), 'GET']); // every write sent once, the read sent
    expect(upstream.requests.at(-1)?.headers.authorization).toBe('Bearer phx_key_of_another_caller');
  });

  it("never counts an answer over MAX_UPSTREAM_JSON_VALUES: what a record holds is its writers' doing, not the upstream failing", async () => {
    const { upstream, gateway } = await setUp({
      circuitBreaker: { volumeThreshold: 2, errorThresholdPercentage: 1 },
      maxUpstreamJsonValues: 1000,
    });
    // A record whose JSON field a caller filled with 40,000 values: ~80 KB, counted and refused.
    upstream.answerWith((_req, res) => sendJson(res, 200, page([{ id: ORG, name: 'x', junk: Array(40_000).fill(0) }])));
    for (let i = 0; i < 4; i++) {
      const { errors } = await run(gateway, '{ organizations(first: 1) { nodes { name } } }');
      expect(errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    }
    expect(gateway.transport.circuits()).toEqual([]);
    expect(upstream.requests).toHaveLength(4);
  });

  it('never counts 4xx answers (429 included), to reads or to writes', async () => {
    const { upstream, gateway } = await setUp({ circuitBreaker: { volumeThreshold: 2, errorThresholdPercentage: 1 } });
    const statuses = [400, 401, 403, 404, 409, 422, 429];
    let next = 0;
    upstream.answerWith((_req, res) =>
      sendJson(res, statuses[next++ % statuses.length]!, { type: 'invalid_request', code: 'x', detail: 'No.', attr: null }),
    );
    for (let i = 0; i < statuses.length * 2; i++) {
      await run(
        gateway,
        i % 2 ? `{ organization(databaseId: "${ORG}") { name } }` : 'mutation { createOrganization(input: { name: "x" }) { __typename } }',
      );
    }
    expect(gateway.transport.circuits()).toEqual([]);
    expect(upstream.requests).toHaveLength(statuses.length * 2);
  });

  it("a read route's 5xx opens that route's circuit only: other routes and writes are still sent, and a probe closes it", async () => {
    const log = captureLogger('info');
    const { upstream, gateway } = await setUp({
      logger: log.logger,
      circuitBreaker: { volumeThreshold: 3, errorThresholdPercentage: 50, resetTimeoutMs: 300 },
    });
    let domainsHealthy = false;
    upstream.answerWith((req, res) => {
      if (req.path === `/api/organizations/${ORG}/`) return sendJson(res, 200, { id: ORG, name: 'Org', teams: [] });
      if (req.method === 'GET' && req.path === `/api/organizations/${ORG}/domains/` && !domainsHealthy)
        return sendJson(res, 503, { detail: 'down' });
      return sendJson(res, req.method === 'POST' ? 201 : 200, req.method === 'POST' ? { id: ORG, domain: 'acme.com' } : page([]));
    });

    for (let i = 0; i < 3; i++)
      expect((await run(gateway, ORG_QUERY)).errors?.[0]).toMatchObject({
        path: ['organization', 'domains'],
        extensions: { upstreamStatus: 503 },
      });
    expect(gateway.transport.circuits()).toEqual([{ route: DOMAINS_ROUTE, state: 'open' }]);
    expect(gateway.transport.state()).toBe('closed');

    upstream.requests.length = 0;
    const paused = await run(gateway, ORG_QUERY);
    expect(paused.data).toEqual({ organization: { name: 'Org', domains: null, batchExports: { totalCount: 0 } } });
    expect(paused.errors).toEqual([expect.objectContaining({ path: ['organization', 'domains'], ...PAUSED })]);
    const write = await run(
      gateway,
      `mutation { createDomain(input: { organizationId: "${globalId('Organization', ORG)}", domain: "acme.com" }) { __typename } }`,
    );
    expect(write.errors).toBeUndefined();
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      `GET /api/organizations/${ORG}/`,
      `GET /api/organizations/${ORG}/batch_exports/`,
      `POST /api/organizations/${ORG}/domains/`,
    ]);

    domainsHealthy = true;
    await wait(350);
    expect(await run(gateway, ORG_QUERY)).toEqual({
      data: { organization: { name: 'Org', domains: { totalCount: 0 }, batchExports: { totalCount: 0 } } },
    });
    expect(gateway.transport.circuits()).toEqual([]);
    expect(log.lines.filter((line) => line.circuit).map(({ level, circuit, route, msg }) => ({ level, circuit, route, msg }))).toEqual(
      (['open', 'half-open', 'closed'] as const).map((state) => ({
        level: state === 'open' ? 'warn' : 'info',
        circuit: state,
        route: DOMAINS_ROUTE,
        msg: `upstream circuit breaker ${state}`,
      })),
    );
  });

  it('refused connections open the whole-upstream circuit: every route and method fails fast unsent, until a probe closes it', async () => {
    const url = await refusedUrl();
    const { gateway } = await setUp({
      upstreamUrl: url,
      circuitBreaker: { volumeThreshold: 4, errorThresholdPercentage: 50, resetTimeoutMs: 300 },
    });
    const queries = [
      '{ organizations { totalCount } }',
      `{ organization(databaseId: "${ORG}") { name } }`,
      'mutation { createOrganization(input: { name: "x" }) { __typename } }',
    ];
    for (let i = 0; i < 4; i++) {
      expect((await run(gateway, queries[i % queries.length]!)).errors?.[0]).toMatchObject({
        message: 'The upstream service could not be reached.',
      });
    }
    expect(gateway.transport.circuits()).toEqual([{ route: '*', state: 'open' }]);

    // The upstream is back, but nothing is sent to it until the circuit's reset timeout has passed.
    upstream = await startReferenceApi({ port: Number(new URL(url).port) });
    upstream.answerWith((req, res) =>
      sendJson(res, 200, req.path === '/api/organizations/' ? page([]) : { id: ORG, name: 'Org', teams: [] }),
    );
    for (const query of queries) expect((await run(gateway, query)).errors?.[0]).toMatchObject(PAUSED);
    expect(upstream.requests).toHaveLength(0);

    await wait(350);
    expect(await run(gateway, `{ organization(databaseId: "${ORG}") { name } }`)).toEqual({ data: { organization: { name: 'Org' } } });
    expect(gateway.transport.circuits()).toEqual([]);
    expect(await run(gateway, '{ organizations { totalCount } }')).toEqual({ data: { organizations: { totalCount: 0 } } });
    expect(upstream.requests).toHaveLength(2);
  });
});

describe('how a circuit counts (over HTTP, one read route)', () => {
  const LIST = '{ organizations { totalCount } }'; // one GET of the route below
  const LIST_ROUTE = '/api/organizations/';
  const LISTED = { data: { organizations: { totalCount: 0 } } };
  const answer = (res: ServerResponse, status: number) => sendJson(res, status, status < 300 ? page([]) : { detail: 'down' });
  const circuitLog = (log: ReturnType<typeof captureLogger>) => log.lines.filter((line) => line.circuit).map((line) => line.circuit);
  async function until(check: () => boolean, what: string) {
    const deadline = performance.now() + 5000;
    while (!check()) {
      if (performance.now() > deadline) throw new Error(`gave up waiting until ${what}`);
      await wait(5);
    }
  }

  it('opens once its window holds CIRCUIT_BREAKER_MIN_CALLS calls, not one call before', async () => {
    const { upstream, gateway } = await setUp({ circuitBreaker: { volumeThreshold: 4, errorThresholdPercentage: 1 } });
    upstream.answerWith((_req, res) => answer(res, 503));
    const states: string[] = [];
    for (let i = 0; i < 4; i++) {
      expect((await run(gateway, LIST)).errors?.[0]?.extensions).toMatchObject({ upstreamStatus: 503 });
      states.push(gateway.transport.state(LIST_ROUTE));
    }
    expect(states).toEqual(['closed', 'closed', 'closed', 'open']);
    expect((await run(gateway, LIST)).errors?.[0]).toMatchObject(PAUSED);
    expect(upstream.requests).toHaveLength(4);
  });

  it('opens only above CIRCUIT_BREAKER_ERROR_PERCENT: at exactly that share of failures it stays closed', async () => {
    const { upstream, gateway } = await setUp({ circuitBreaker: { volumeThreshold: 4, errorThresholdPercentage: 50 } });
    let status = 200;
    upstream.answerWith((_req, res) => answer(res, status));
    const states: string[] = [];
    for (const next of [200, 200, 200, 503, 503, 503, 503]) {
      status = next;
      await run(gateway, LIST);
      states.push(gateway.transport.state(LIST_ROUTE));
    }
    // The sixth call makes 3 failures of 6 calls, 50%; the seventh 4 of 7.
    expect(states).toEqual([...Array(6).fill('closed'), 'open']);
  });

  it('forgets the calls of more than its rolling window ago', async () => {
    const { upstream, gateway } = await setUp({
      circuitBreaker: { volumeThreshold: 3, errorThresholdPercentage: 50, rollingWindowMs: 1000 },
    });
    upstream.answerWith((_req, res) => answer(res, 503));
    await run(gateway, LIST);
    await run(gateway, LIST);
    await wait(1100);
    await run(gateway, LIST);
    await run(gateway, LIST);
    expect(gateway.transport.state(LIST_ROUTE)).toBe('closed'); // two calls in the window: the first two are gone
    await run(gateway, LIST);
    expect(gateway.transport.state(LIST_ROUTE)).toBe('open');
    expect(upstream.requests).toHaveLength(5);
  });

  it('turns half-open after CIRCUIT_BREAKER_RESET_MS by itself, then lets one probe through and refuses the rest, unsent, while it runs', async () => {
    const log = captureLogger('info');
    const { upstream, gateway } = await setUp({
      logger: log.logger,
      circuitBreaker: { volumeThreshold: 1, errorThresholdPercentage: 1, resetTimeoutMs: 300 },
    });
    upstream.answerWith((_req, res) => answer(res, 503));
    await run(gateway, LIST);
    expect(gateway.transport.state(LIST_ROUTE)).toBe('open');

    const held: ServerResponse[] = [];
    upstream.answerWith((_req, res) => held.push(res));
    upstream.requests.length = 0;
    await until(() => gateway.transport.state(LIST_ROUTE) === 'half-open', 'half-open');
    expect(circuitLog(log)).toEqual(['open', 'half-open']); // logged before any call came
    const probe = run(gateway, LIST);
    await until(() => held.length === 1, 'the probe arrives');
    for (let i = 0; i < 3; i++) expect((await run(gateway, LIST)).errors?.[0]).toMatchObject(PAUSED);
    expect(upstream.requests).toHaveLength(1);
    expect(gateway.transport.circuits()).toEqual([{ route: LIST_ROUTE, state: 'half-open' }]);

    answer(held[0]!, 200);
    expect(await probe).toEqual(LISTED);
    expect(gateway.transport.circuits()).toEqual([]);
    expect(circuitLog(log)).toEqual(['open', 'half-open', 'closed']);
  });

  it("re-opens on the probe's counted failure for another CIRCUIT_BREAKER_RESET_MS, then probes again", async () => {
    const log = captureLogger('info');
    const { upstream, gateway } = await setUp({
      logger: log.logger,
      circuitBreaker: { volumeThreshold: 1, errorThresholdPercentage: 1, resetTimeoutMs: 300 },
    });
    let status = 503;
    upstream.answerWith((_req, res) => answer(res, status));
    await run(gateway, LIST);
    await until(() => gateway.transport.state(LIST_ROUTE) === 'half-open', 'half-open');
    expect((await run(gateway, LIST)).errors?.[0]?.extensions).toMatchObject({ upstreamStatus: 503 }); // the probe, sent
    const reopenedAt = performance.now();
    expect(gateway.transport.state(LIST_ROUTE)).toBe('open');
    expect((await run(gateway, LIST)).errors?.[0]).toMatchObject(PAUSED);
    expect(upstream.requests).toHaveLength(2);

    status = 200;
    await until(() => gateway.transport.state(LIST_ROUTE) === 'half-open', 'half-open again');
    expect(performance.now() - reopenedAt).toBeGreaterThanOrEqual(250);
    expect(await run(gateway, LIST)).toEqual(LISTED);
    expect(circuitLog(log)).toEqual(['open', 'half-open', 'open', 'half-open', 'closed']);
  });

  it('closes on a probe answered with a 4xx: an answer, which no circuit counts', async () => {
    const { upstream, gateway } = await setUp({ circuitBreaker: { volumeThreshold: 1, errorThresholdPercentage: 1, resetTimeoutMs: 300 } });
    let status = 503;
    upstream.answerWith((_req, res) => answer(res, status));
    await run(gateway, LIST);
    status = 404;
    await until(() => gateway.transport.state(LIST_ROUTE) === 'half-open', 'half-open');
    expect((await run(gateway, LIST)).errors?.[0]?.message).not.toMatch(/paused/);
    expect(gateway.transport.circuits()).toEqual([]);
    expect(upstream.requests).toHaveLength(2);
  });

  it("does not spend a read route's half-open probe on a call the whole upstream's open circuit refuses", async () => {
    const { upstream: first, gateway } = await setUp({
      circuitBreaker: { volumeThreshold: 3, errorThresholdPercentage: 50, resetTimeoutMs: 1000 },
    });
    first.answerWith((_req, res) => answer(res, 503));
    for (let i = 0; i < 3; i++) await run(gateway, LIST);
    expect(gateway.transport.circuits()).toEqual([{ route: LIST_ROUTE, state: 'open' }]);

    // Some time later the upstream goes away: refused connections open the whole upstream's circuit.
    await wait(400);
    await first.close();
    for (let i = 0; i < 10 && gateway.transport.state() !== 'open'; i++) await run(gateway, WRITE);
    expect(gateway.transport.state()).toBe('open');

    await until(() => gateway.transport.state(LIST_ROUTE) === 'half-open', 'the route is half-open');
    expect(gateway.transport.state()).toBe('open');
    expect((await run(gateway, LIST)).errors?.[0]).toMatchObject(PAUSED);
    expect(gateway.transport.state(LIST_ROUTE)).toBe('half-open'); // its probe still to come

    upstream = await startReferenceApi({ port: Number(new URL(first.url).port) });
    upstream.answerWith((_req, res) => answer(res, 200));
    await until(() => gateway.transport.state() === 'half-open', 'the whole upstream is half-open');
    expect(await run(gateway, LIST)).toEqual(LISTED); // one call, the probe of both
    expect(gateway.transport.circuits()).toEqual([]);
    expect(upstream.requests).toHaveLength(1);
  });
});

describe('a timeout counts only when the call ran out its own UPSTREAM_TIMEOUT_MS (over HTTP)', () => {
  const LIST = '{ organizations { totalCount } }';
  const LIST_ROUTE = '/api/organizations/';
  const BREAKER = { volumeThreshold: 2, errorThresholdPercentage: 1 };

  async function serve(options: Partial<GatewayOptions>) {
    const { upstream, gateway } = await setUp({ circuitBreaker: BREAKER, ...options });
    const server = createGatewayServer(gateway.listener, DEFAULTS.server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    const post = async (key: string, signal?: AbortSignal) => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify({ query: LIST }),
        signal,
      });
      return (await response.json()) as { data?: any; errors?: any[] };
    };
    const stop = async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    };
    return { upstream, gateway, post, stop };
  }

  it("reads cut by their request's deadline or by their caller leaving open no circuit: another caller's read is answered", async () => {
    // The upstream is healthy but holds these calls; a caller can bring its own deadline close (by
    // sending its body late), so what the deadline cuts says nothing of the upstream.
    const { upstream, gateway, post, stop } = await serve({ requestDeadlineMs: 300, upstreamTimeoutMs: 10_000 });
    let holding = true;
    upstream.answerWith((_req, res) => (holding ? undefined : sendJson(res, 200, page([]))));
    try {
      for (let i = 0; i < 4; i++) {
        expect((await post('phx_hostile_key')).errors?.[0]?.extensions?.code).toBe('UPSTREAM_TIMEOUT');
      }
      for (let i = 0; i < 2; i++) {
        const client = new AbortController();
        const sent = upstream.requests.length;
        const call = post('phx_hostile_key', client.signal).catch(() => 'left');
        while (upstream.requests.length === sent) await wait(5);
        client.abort();
        expect(await call).toBe('left');
      }
      expect(upstream.requests).toHaveLength(6); // every call was sent: none was refused by a circuit
      expect(gateway.transport.circuits()).toEqual([]);

      holding = false;
      expect(await post('phx_other_key')).toEqual({ data: { organizations: { totalCount: 0 } } });
      expect(upstream.requests).toHaveLength(7);
    } finally {
      await stop();
    }
  });

  it('reads the upstream held past UPSTREAM_TIMEOUT_MS open their route circuit', async () => {
    const { upstream, gateway, post, stop } = await serve({ requestDeadlineMs: 10_000, upstreamTimeoutMs: 200 });
    upstream.answerWith(() => undefined); // never answered
    try {
      for (let i = 0; i < 2; i++) expect((await post('phx_resilience_key')).errors?.[0]?.extensions?.code).toBe('UPSTREAM_TIMEOUT');
      expect(gateway.transport.circuits()).toEqual([{ route: LIST_ROUTE, state: 'open' }]);
      expect((await post('phx_other_key')).errors?.[0]).toMatchObject(PAUSED);
      expect(upstream.requests).toHaveLength(2);
    } finally {
      await stop();
    }
  });
});

describe('per-request bounds', () => {
  it('a slow upstream past REQUEST_DEADLINE_MS is UPSTREAM_TIMEOUT', async () => {
    const { upstream, gateway } = await setUp({ requestDeadlineMs: 200, upstreamTimeoutMs: 10_000 });
    upstream.answerWith((_req, res) => setTimeout(() => sendJson(res, 200, page([])), 4000));
    const started = Date.now();
    const { errors } = await run(gateway, '{ organizations { totalCount } }');
    expect(errors?.[0]?.extensions?.code).toBe('UPSTREAM_TIMEOUT');
    // The deadline clock sweeps every 20 ms: the deadline holds to a fraction of a second.
    expect(Date.now() - started).toBeLessThan(200 + 400);
  });

  it('ends the request when the client goes away (over HTTP); its read on the wire is drained, not cut, until its own limit', async () => {
    const { upstream, gateway } = await setUp({ upstreamTimeoutMs: 1500 });
    let upstreamClosedAt = 0;
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    upstream.answerWith((_req, res) => {
      // Never answered: only the gateway can end it, at the abort or at UPSTREAM_TIMEOUT_MS.
      res.on('close', () => (upstreamClosedAt = performance.now()));
      received();
    });
    const server = createGatewayServer(gateway.listener, DEFAULTS.server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = new AbortController();
      const sentAt = performance.now();
      const call = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer phx_resilience_key' },
        body: JSON.stringify({ query: '{ organizations { totalCount } }' }),
        signal: client.signal,
      }).catch(() => 'aborted');
      await arrived;
      client.abort();
      expect(await call).toBe('aborted');
      // The call was sent: its connection is kept for the answer (so the pool need not open
      // another), and cut at the call's own limit, not the caller's leaving.
      await wait(500);
      expect(upstreamClosedAt).toBe(0);
      await expect.poll(() => upstreamClosedAt, { timeout: 3000 }).toBeGreaterThan(0);
      expect(upstreamClosedAt - sentAt).toBeGreaterThanOrEqual(1499);
      expect(upstreamClosedAt - sentAt).toBeLessThan(1500 + 500);
      expect(upstream.requests).toHaveLength(1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("ends the request's calls not yet sent when the client goes away (over HTTP): only the call on the wire reached the upstream", async () => {
    // One call at a time: the second of two lookups waits behind the first, which the upstream holds.
    // Were the client's leaving not seen, the held call would end at its own limit (300 ms) and the
    // second be sent then, long before the request's deadline (10 s).
    const { upstream, gateway } = await setUp({ upstreamConcurrencyPerRequest: 1, upstreamTimeoutMs: 300, requestDeadlineMs: 10_000 });
    let heldCallEnded!: () => void;
    const ended = new Promise<void>((resolve) => (heldCallEnded = resolve));
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    upstream.answerWith((_req, res) => {
      res.on('close', () => heldCallEnded());
      received(); // never answered
    });
    const server = createGatewayServer(gateway.listener, DEFAULTS.server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const ids = ['0f000000-0000-4000-8000-00000000000a', '0f000000-0000-4000-8000-00000000000b'];
    try {
      const client = new AbortController();
      const call = fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer phx_resilience_key' },
        body: JSON.stringify({
          query: `{ a: organization(databaseId: "${ids[0]}") { name } b: organization(databaseId: "${ids[1]}") { name } }`,
        }),
        signal: client.signal,
      }).catch(() => 'left');
      await arrived;
      client.abort();
      expect(await call).toBe('left');
      await ended; // the held call ran out its own limit: the second would be sent now
      await wait(200);
      expect(upstream.requests.map(({ path }) => path)).toEqual([`/api/organizations/${ids[0]}/`]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('runs at most UPSTREAM_CONCURRENCY_PER_REQUEST calls of one request at once', async () => {
    const { upstream, gateway } = await setUp({ upstreamConcurrencyPerRequest: 2 });
    let inFlight = 0;
    let peak = 0;
    upstream.answerWith((req, res) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      const results = req.path === '/api/organizations/' ? [{ id: ORG, name: 'Org', teams: [] }] : [];
      setTimeout(() => {
        inFlight -= 1;
        sendJson(res, 200, page(results));
      }, 30);
    });
    const { errors } = await run(
      gateway,
      `{ organizations { nodes {
      batchExports { totalCount } domains { totalCount } members { totalCount } invites { totalCount }
      pipelineDestinations { totalCount } pipelineFrontendApps { totalCount } } } }`,
    );
    expect(errors).toBeUndefined();
    expect(upstream.requests).toHaveLength(7);
    expect(peak).toBe(2);
  });

  it("with the default settings, a dashboard's 20 lists are in flight together: two round trips, not three", async () => {
    const { upstream, gateway } = await setUp({});
    const orgs = ['1', '2', '3', '4', '5'].map((n) => ({ id: ORG.replace(/1$/, n), name: `Org ${n}`, teams: [] }));
    let inFlight = 0;
    let peak = 0;
    upstream.answerWith((req, res) => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      // A list is held 200 ms unless all 20 are in: with fewer at once (a third round trip) the peak stays lower.
      const answer = () => {
        inFlight -= 1;
        sendJson(res, 200, page(req.path === '/api/organizations/' ? orgs : []));
      };
      if (req.path === '/api/organizations/') answer();
      else setTimeout(answer, inFlight >= 20 ? 0 : 200);
    });
    const { data, errors } = await run(
      gateway,
      `{ organizations(first: 5) { nodes {
      batchExports(first: 10) { totalCount } domains(first: 5) { totalCount } members(first: 10) { totalCount }
      pipelineDestinations(first: 10) { totalCount } } } }`,
    );
    expect(errors).toBeUndefined();
    expect(data.organizations.nodes).toHaveLength(5);
    expect(upstream.requests).toHaveLength(21);
    expect(peak).toBe(20); // 16 with the old default of UPSTREAM_CONCURRENCY_PER_REQUEST
  });
});
