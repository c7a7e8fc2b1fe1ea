// Idempotent mutations against the reference API with scripted answers, over HTTP: a duplicate while the first
// runs is refused (409), a write once sent is seen through when its caller leaves or its deadline
// passes and its real outcome is replayed, what "sent" means on each side (a refused connection, a
// limit or UPSTREAM_BUDGET leaves nothing; a timeout after sending is remembered), a dropped answer,
// a response too large to keep, an IDEMPOTENCY_TTL_MS shorter than a request, the memory bound, the
// per-caller bound, and the metrics.
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { parseUpstreamBudget } from '../../src/config/upstream-budget.ts';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { globalId } from '../../src/schema/global-id.ts';
import { captureLogger } from '../ops/support.ts';
import { serveOverHttp } from '../support/http-server.ts';
import { refusedUrl } from '../support/refused-url.ts';
import { dropMidResponse, sendJson } from '../support/scripted-answers.ts';
import { domainInput, ORGANIZATIONS, post, retryUntilSettled } from './support.ts';

const ORG = '0190d1f2-0000-7000-8000-00000000abcd';
const DOMAIN_ID = '0190d1f2-0000-7000-8000-0000000d0e01';
const KEY = 'phx_idempotency_fake_key';
const WRITE_PATH = `/api/organizations/${ORG}/domains/`;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  upstream: ReferenceApi;
  gateway: Gateway;
  url: string;
  /** Answers to writes the upstream finished sending, and those cut before the end (the gateway gave up on them). */
  answered: number;
  cut: number;
  writes(): number;
  /** Holds every write's answer until the function it returns is called. */
  holdWrites(): () => void;
}

/** The upstream answers a write after `writeMs` with the created domain; reads at once with an empty page. */
async function setUp(options: Partial<GatewayOptions> & { writeMs?: number; port?: number; answer?: (res: ServerResponse) => void } = {}) {
  const upstream = await startReferenceApi({ port: options.port });
  const gateway = createGateway({ upstreamUrl: upstream.url, logger: captureLogger('warn').logger, ...options });
  const served = await serveOverHttp(gateway);
  cleanups.push(
    () => upstream.close(),
    () => gateway.close(),
    () => served.close(),
  );
  const setup: Setup = {
    upstream,
    gateway,
    url: served.url,
    answered: 0,
    cut: 0,
    writes: () => upstream.requests.filter((request) => request.method !== 'GET').length,
    holdWrites() {
      let release!: () => void;
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
      return release;
    },
  };
  let held: Promise<void> | undefined;
  upstream.answerWith(async (req, res) => {
    if (req.method === 'GET') return sendJson(res, 200, { count: 0, next: null, previous: null, results: [] });
    res.on('close', () => {
      if (res.writableFinished) setup.answered += 1;
      else setup.cut += 1;
    });
    await held;
    await sleep(options.writeMs ?? 0);
    if (options.answer) return options.answer(res);
    sendJson(res, 201, { id: DOMAIN_ID, domain: (req.body as { domain: string }).domain });
  });
  return setup;
}

const variables = (domain = 'acme.example') => domainInput(ORG, domain);

describe('a duplicate while the first request runs', () => {
  it('gets 409 IDEMPOTENCY_CONFLICT with Retry-After: 1 and no upstream call; after it ends, its response', async () => {
    const s = await setUp();
    const release = s.holdWrites();
    const first = post(s.url, { key: KEY, idempotencyKey: 'slow-1', variables: variables() });
    await expect.poll(() => s.writes()).toBe(1);
    const duplicate = await post(s.url, { key: KEY, idempotencyKey: 'slow-1', variables: variables() });
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers.get('retry-after')).toBe('1');
    expect(duplicate.body.errors?.[0]?.extensions).toEqual({ code: 'IDEMPOTENCY_CONFLICT' });
    release();
    const done = await first;
    expect(done.body.data.createDomain).toEqual({
      __typename: 'CreateDomainPayload',
      domain: expect.objectContaining({ domain: 'acme.example' }),
    });
    const retry = await post(s.url, { key: KEY, idempotencyKey: 'slow-1', variables: variables() });
    expect(retry.text).toBe(done.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(s.upstream.requests.map((request) => `${request.method} ${request.path}`)).toEqual([`POST ${WRITE_PATH}`]);
  });

  it('an IDEMPOTENCY_TTL_MS shorter than the request: the claim outlives it, a duplicate past the TTL still gets 409', async () => {
    const s = await setUp({ idempotency: { ttlMs: 1000 } });
    const release = s.holdWrites();
    const first = post(s.url, { key: KEY, idempotencyKey: 'short-ttl-1', variables: variables() });
    await expect.poll(() => s.writes()).toBe(1);
    await sleep(1500); // past the TTL, the write still held
    let answered = false;
    const duplicate = post(s.url, { key: KEY, idempotencyKey: 'short-ttl-1', variables: variables() }).finally(() => {
      answered = true;
    });
    // Refused at once; or (were the claim gone) its own write held like the first.
    await expect.poll(() => answered || s.writes() === 2).toBe(true);
    release();
    const [done, refused] = await Promise.all([first, duplicate]);
    expect(done.body.data.createDomain.__typename).toBe('CreateDomainPayload');
    expect(refused.status).toBe(409);
    expect(refused.body.errors?.[0]?.extensions).toEqual({ code: 'IDEMPOTENCY_CONFLICT' });
    expect(s.writes()).toBe(1);
  });
});

describe('a write once sent is seen through', () => {
  it('the caller disconnects mid-write: the upstream answers in full, once, and the retry gets that outcome', async () => {
    const s = await setUp({ writeMs: 600 });
    const caller = new AbortController();
    const first = post(s.url, { key: KEY, idempotencyKey: 'gone-1', variables: variables(), signal: caller.signal });
    await expect.poll(() => s.writes()).toBe(1);
    caller.abort();
    await expect(first).rejects.toThrow();
    const retry = await retryUntilSettled(s.url, { key: KEY, idempotencyKey: 'gone-1', variables: variables() });
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.data.createDomain).toEqual({
      __typename: 'CreateDomainPayload',
      domain: { id: expect.any(String), domain: 'acme.example' },
    });
    expect({ writes: s.writes(), answered: s.answered, cut: s.cut }).toEqual({ writes: 1, answered: 1, cut: 0 });
  });

  it('and so is the re-read its payload needs: the retry gets the whole payload, not the caller’s abort', async () => {
    const s = await setUp();
    const exportId = '0190d1f2-0000-7000-8000-0000000e0001';
    const exportPath = `/api/organizations/${ORG}/batch_exports/${exportId}/`;
    const caller = new AbortController();
    // The live service answers a pause with `{"paused": true}`: the gateway reads the export back.
    s.upstream.answerWith(async (req, res) => {
      if (req.method === 'POST') {
        caller.abort(); // the caller leaves while the write is on the wire
        await sleep(200);
        return sendJson(res, 200, { paused: true });
      }
      await sleep(100);
      sendJson(res, 200, { id: exportId, name: 'Nightly', paused: true });
    });
    const query = `mutation Pause($id: ID!) { pauseBatchExport(input: { id: $id }) {
      __typename ... on PauseBatchExportPayload { batchExport { name paused } } } }`;
    const variables = { id: globalId('BatchExport', ORG, exportId) };
    await expect(post(s.url, { key: KEY, idempotencyKey: 'reread-1', query, variables, signal: caller.signal })).rejects.toThrow();
    const retry = await retryUntilSettled(s.url, { key: KEY, idempotencyKey: 'reread-1', query, variables });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body).toEqual({
      data: { pauseBatchExport: { __typename: 'PauseBatchExportPayload', batchExport: { name: 'Nightly', paused: true } } },
    });
    expect(s.upstream.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      `POST ${exportPath}pause/`,
      `GET ${exportPath}`,
    ]);
  });

  it('without the header too: the caller leaving no longer cuts a sent write', async () => {
    const s = await setUp({ writeMs: 400 });
    const caller = new AbortController();
    const first = post(s.url, { key: KEY, variables: variables(), signal: caller.signal });
    await expect.poll(() => s.writes()).toBe(1);
    caller.abort();
    await expect(first).rejects.toThrow();
    await expect.poll(() => s.answered + s.cut).toBe(1);
    expect(s.cut).toBe(0);
  });

  it('past the request deadline: the write gets its answer; a read is still cut at the deadline', async () => {
    const s = await setUp({ writeMs: 900, requestDeadlineMs: 300 });
    const write = await post(s.url, { key: KEY, variables: variables() });
    expect(write.body.data.createDomain.__typename).toBe('CreateDomainPayload');
    expect(s.cut).toBe(0);
    s.upstream.answerWith(async (_req, res) => {
      await sleep(900);
      sendJson(res, 200, { count: 0, next: null, previous: null, results: [] });
    });
    const read = await post(s.url, { key: KEY, query: ORGANIZATIONS });
    expect(read.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_TIMEOUT');
  });
});

describe('what a sent write means, on each side', () => {
  it('a connection refused before the request went out is no write: nothing is remembered, the key runs another payload', async () => {
    const url = await refusedUrl();
    const s = await setUp({ upstreamUrl: url, port: 0 });
    const refused = await post(s.url, { key: KEY, idempotencyKey: 'refused-1', variables: variables('one.example') });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    // The same gateway, its upstream now listening on that port.
    const upstream = await startReferenceApi({ port: Number(new URL(url).port) });
    cleanups.push(() => upstream.close());
    upstream.answerWith((req, res) => sendJson(res, 201, { id: DOMAIN_ID, domain: (req.body as { domain: string }).domain }));
    const next = await post(s.url, { key: KEY, idempotencyKey: 'refused-1', variables: variables('two.example') });
    expect(next.status).toBe(200);
    expect(next.body.data.createDomain.domain.domain).toBe('two.example');
    expect(upstream.requests.map((request) => (request.body as { domain: string }).domain)).toEqual(['two.example']);
  });

  it('refused by a limit after the key was claimed (the fan-out budget): the claim is released, the key runs another request', async () => {
    const s = await setUp({ maxUpstreamCalls: 2 }); // one mutation field is estimated at 2 calls (its write and a re-read)
    const twice = `mutation Twice($a: CreateDomainInput!, $b: CreateDomainInput!) {
      a: createDomain(input: $a) { __typename } b: createDomain(input: $b) { __typename } }`;
    const refused = await post(s.url, {
      key: KEY,
      idempotencyKey: 'limit-1',
      query: twice,
      variables: { a: variables('a.example').input, b: variables('b.example').input },
    });
    expect(refused.body.errors?.[0]?.extensions?.code).toBe('QUERY_TOO_COMPLEX');
    const next = await post(s.url, { key: KEY, idempotencyKey: 'limit-1', variables: variables('c.example') });
    expect(next.body.data.createDomain.domain.domain).toBe('c.example');
    expect(s.upstream.requests.map((request) => (request.body as { domain: string }).domain)).toEqual(['c.example']);
  });

  it('refused by UPSTREAM_BUDGET after the key was claimed: nothing is left behind, another payload is refused by the budget again', async () => {
    const s = await setUp({ upstreamBudget: parseUpstreamBudget('2/minute') });
    // One call spent: the one left is less than a mutation field's estimate (its write and a re-read).
    expect((await post(s.url, { key: KEY, query: ORGANIZATIONS })).body.data.organizations.totalCount).toBe(0);
    for (const domain of ['one.example', 'two.example']) {
      const refused = await post(s.url, { key: KEY, idempotencyKey: 'budget-1', variables: variables(domain) });
      expect(refused.status).not.toBe(422);
      expect(refused.headers.get('idempotent-replayed')).toBeNull();
      expect(refused.body.data?.createDomain ?? null).toBeNull();
      expect(refused.body.errors).toEqual([
        expect.objectContaining({ extensions: { code: 'RATE_LIMITED', limit: 'upstreamBudget', retryAfter: expect.any(Number) } }),
      ]);
    }
    expect(s.upstream.requests.map((request) => `${request.method} ${request.path}`)).toEqual(['GET /api/organizations/']);
    // Not vacuous: the key was claimed each time (and released), never refused as malformed or unavailable.
    const text = await s.gateway.metrics.registry.metrics();
    expect(text).toContain('gateway_idempotent_requests_total{outcome="claimed"} 2');
    expect(text).not.toMatch(/gateway_idempotent_requests_total\{outcome="key_reused"\} [1-9]/);
  });

  it('a timeout after it went out may be a write: the timeout is remembered and replayed, never sent again', async () => {
    const s = await setUp({ writeMs: 1000, upstreamTimeoutMs: 200 });
    const first = await post(s.url, { key: KEY, idempotencyKey: 'timeout-1', variables: variables() });
    expect(first.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_TIMEOUT');
    const retry = await post(s.url, { key: KEY, idempotencyKey: 'timeout-1', variables: variables() });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(s.writes()).toBe(1);
  });

  it('a dropped answer is remembered as the error it was: the retry replays it, with no second write', async () => {
    const s = await setUp({ answer: dropMidResponse });
    const first = await post(s.url, { key: KEY, idempotencyKey: 'dropped-1', variables: variables() });
    expect(first.body.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    const retry = await post(s.url, { key: KEY, idempotencyKey: 'dropped-1', variables: variables() });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(s.writes()).toBe(1);
  });
});

describe('bounds', () => {
  it('a response too large to keep: the retry is refused with 409 and the reason, never run again', async () => {
    const s = await setUp({ idempotency: { maxResponseBytes: 100 } });
    const domain = `${'long'.repeat(30)}.example`;
    const first = await post(s.url, { key: KEY, idempotencyKey: 'large-1', variables: variables(domain) });
    expect(first.body.data.createDomain.domain.domain).toBe(domain);
    const retry = await post(s.url, { key: KEY, idempotencyKey: 'large-1', variables: variables(domain) });
    expect(retry.status).toBe(409);
    expect(retry.headers.get('retry-after')).toBeNull();
    expect(retry.body.errors?.[0]?.extensions).toEqual({ code: 'IDEMPOTENCY_CONFLICT', reason: 'RESPONSE_TOO_LARGE' });
    expect(s.writes()).toBe(1);
  });

  it('past IDEMPOTENCY_MAX_ENTRIES in memory, a new key is refused with 503 before any call, told when the first record expires; remembered ones still replay', async () => {
    const s = await setUp({ idempotency: { maxEntries: 1, ttlMs: 600_000 } });
    const first = await post(s.url, { key: KEY, idempotencyKey: 'full-1', variables: variables() });
    const refused = await post(s.url, { key: KEY, idempotencyKey: 'full-2', variables: variables('other.example') });
    expect(refused.status).toBe(503);
    // The one record expires IDEMPOTENCY_TTL_MS after it was settled: not in 1 second.
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(590);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(refused.body.errors?.[0]?.extensions).toEqual({ code: 'IDEMPOTENCY_UNAVAILABLE', reason: 'STORE_FULL', retryAfter });
    expect(refused.body.errors?.[0]?.message).toMatch(new RegExp(`the first is forgotten in ${retryAfter} seconds`));
    expect((await post(s.url, { key: KEY, idempotencyKey: 'full-1', variables: variables() })).text).toBe(first.text);
    const plain = await post(s.url, { key: KEY, variables: variables('plain.example') });
    expect(plain.body.data.createDomain.__typename).toBe('CreateDomainPayload');
    expect(s.writes()).toBe(2);
  });
});

describe('keys the upstream refused', () => {
  it.each([401, 403])('hold no record when the upstream answers %i: made-up keys leave the store free for a real key', async (status) => {
    const s = await setUp({
      idempotency: { maxEntries: 5 },
      answer: (res) => sendJson(res, status, { type: 'authentication_error', code: 'not_authenticated', detail: 'No.', attr: null }),
    });
    for (let n = 0; n < 20; n++) {
      const refused = await post(s.url, { key: `phx_made_up_${n}`, idempotencyKey: `made-up-${n}`, variables: variables(`m${n}.example`) });
      expect(refused.status).toBe(200);
      expect(refused.body.errors?.[0]?.extensions?.code).toBe(status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN');
    }
    expect(s.writes()).toBe(20);
    // The same key again is sent again (nothing was remembered: nothing changed).
    await post(s.url, { key: 'phx_made_up_0', idempotencyKey: 'made-up-0', variables: variables('m0.example') });
    expect(s.writes()).toBe(21);
    // A real key's idempotent mutations are claimed and remembered as usual, up to the store's bound.
    s.upstream.answerWith((req, res) => sendJson(res, 201, { id: DOMAIN_ID, domain: (req.body as { domain: string }).domain }));
    for (let n = 0; n < 5; n++) {
      const real = await post(s.url, { key: KEY, idempotencyKey: `real-${n}`, variables: variables(`r${n}.example`) });
      expect(real.status).toBe(200);
      expect(real.body.data.createDomain.__typename).toBe('CreateDomainPayload');
    }
    const replay = await post(s.url, { key: KEY, idempotencyKey: 'real-0', variables: variables('r0.example') });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('IDEMPOTENCY_MAX_ENTRIES_PER_CALLER', () => {
  it('one caller past its share is refused (429, for it alone), even with writes the upstream refused; others run', async () => {
    const s = await setUp({
      idempotency: { maxEntries: 3, maxEntriesPerCaller: 2 },
      answer: (res) => sendJson(res, 400, { type: 'validation_error', code: 'invalid_input', detail: 'No.', attr: 'domain' }),
    });
    for (const n of [1, 2]) {
      const refusedUpstream = await post(s.url, { key: KEY, idempotencyKey: `h-${n}`, variables: variables(`h${n}.example`) });
      expect(refusedUpstream.body.data.createDomain.__typename).toBe('ValidationError'); // sent: remembered
    }
    const full = await post(s.url, { key: KEY, idempotencyKey: 'h-3', variables: variables('h3.example') });
    expect(full.status).toBe(429);
    expect(full.headers.get('retry-after')).toBeNull();
    expect(full.body.errors?.[0]?.extensions).toEqual({ code: 'IDEMPOTENCY_UNAVAILABLE', reason: 'CALLER_LIMIT' });
    expect(
      (await post(s.url, { key: KEY, idempotencyKey: 'h-1', variables: variables('h1.example') })).headers.get('idempotent-replayed'),
    ).toBe('true');
    const other = await post(s.url, { key: 'phx_other_caller', idempotencyKey: 'v-1', variables: variables('v.example') });
    expect(other.status).toBe(200);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(s.writes()).toBe(3);
  });
});

describe('metrics', () => {
  it('count requests by outcome', async () => {
    const s = await setUp();
    const release = s.holdWrites();
    const first = post(s.url, { key: KEY, idempotencyKey: 'm-1', variables: variables() });
    await expect.poll(() => s.writes()).toBe(1);
    await post(s.url, { key: KEY, idempotencyKey: 'm-1', variables: variables() });
    release();
    await first;
    await post(s.url, { key: KEY, idempotencyKey: 'm-1', variables: variables() });
    await post(s.url, { key: KEY, idempotencyKey: 'm-1', variables: variables('other.example') });
    await post(s.url, { key: KEY, idempotencyKey: 'm 1', variables: variables() });
    const text = await s.gateway.metrics.registry.metrics();
    for (const outcome of ['claimed', 'replayed', 'conflict', 'key_reused', 'malformed'])
      expect(text).toContain(`gateway_idempotent_requests_total{outcome="${outcome}"} 1`);
    expect(text).toContain('gateway_idempotency_store_failures_total 0');
    expect(text).not.toContain(KEY);
  });
});
