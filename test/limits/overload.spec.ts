// Overload (contract: Limits): past its admission capacity the gateway refuses a request at once
// with HTTP 503, `Retry-After` and OVERLOADED, before any upstream call; a request admitted to wait
// still ends within REQUEST_DEADLINE_MS, its wait included; the gateway's own queueing opens no
// circuit breaker; one key's flood leaves another key served; and an execution that never ends is
// answered and gives its capacity back. Over HTTP, against answers scripted
// into the reference API, with capacities of a few calls (the load figures are bench/overload.ts's).
import type { ServerResponse } from 'node:http';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { parseUpstreamBudget } from '../../src/config/upstream-budget.ts';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { captureLogger } from '../ops/support.ts';
import { type ServedGateway, serveOverHttp } from '../support/http-server.ts';
import { metricValue } from '../support/metrics.ts';
import { sendJson } from '../support/scripted-answers.ts';

const ORG = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbb1';
/** One upstream call (a retrieve): weight 1. */
const LOOKUP = `{ organization(databaseId: "${ORG}") { name } }`;
const org = { id: ORG, name: 'Org', teams: [] };
/** Room for a loaded test machine past a time limit. */
const LATE_MS = 200;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let upstream: ReferenceApi | undefined;
let gateway: Gateway | undefined;
let served: ServedGateway | undefined;

async function closeAll() {
  await served?.close();
  await gateway?.close();
  await upstream?.close();
  served = gateway = upstream = undefined;
}
afterEach(closeAll);

interface Answer {
  status: number;
  retryAfter: string | null;
  body: { data?: any; errors?: any[] };
  tookMs: number;
  endedAt: number;
}

async function serve(options: Partial<GatewayOptions>) {
  const scripted = await startReferenceApi();
  // Scraped during and after a request: each scrape renders anew.
  const created = createGateway({ upstreamUrl: scripted.url, upstreamGetRetries: 0, metricsCacheMs: 0, ...options });
  const listening = await serveOverHttp(created);
  [upstream, gateway, served] = [scripted, created, listening];
  const { url } = listening;
  async function post(query: string, key = 'phx_overload_key'): Promise<Answer> {
    const startedAt = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ query }),
    });
    const body = (await response.json()) as Answer['body'];
    const endedAt = performance.now();
    return { status: response.status, retryAfter: response.headers.get('retry-after'), body, tookMs: endedAt - startedAt, endedAt };
  }
  const metrics = async () => (await fetch(new URL('/metrics', url))).text();
  return { upstream: scripted, gateway: created, post, metrics, url };
}

/** Holds every upstream answer until `open()`; then answers them, and later calls at once. */
function gate(scripted: ReferenceApi) {
  const held: ServerResponse[] = [];
  let opened = false;
  scripted.answerWith((_req, res) => (opened ? sendJson(res, 200, org) : held.push(res)));
  return {
    open() {
      opened = true;
      for (const res of held.splice(0)) sendJson(res, 200, org);
    },
  };
}

async function until(condition: () => boolean) {
  while (!condition()) await wait(5);
}

const callsOf = (scripted: ReferenceApi, key: string) =>
  scripted.requests.filter((r) => r.headers.authorization === `Bearer ${key}`).length;

function expectRefused(answer: Answer) {
  expect(answer.status).toBe(503);
  expect(answer.retryAfter).toMatch(/^[1-9]\d*$/);
  expect(answer.body.data).toBeUndefined();
  expect(answer.body.errors).toEqual([
    {
      message: expect.stringMatching(/^This gateway is at capacity\. Retry after \d+ seconds?\.$/),
      extensions: { code: 'OVERLOADED', retryAfter: Number(answer.retryAfter) },
    },
  ]);
}

describe('past capacity', () => {
  it('refuses at once with 503, Retry-After and OVERLOADED, and sends nothing upstream for the refused', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }), async (capacity, extra) => {
        const { upstream, post } = await serve({ admissionCapacity: capacity, admissionMaxWaitMs: 0 });
        const held = gate(upstream);
        const admitted = Array.from({ length: capacity }, () => post(LOOKUP));
        await until(() => upstream.requests.length === capacity);

        const refused = await Promise.all(Array.from({ length: extra }, () => post(LOOKUP)));
        for (const answer of refused) {
          expectRefused(answer);
          expect(answer.tookMs).toBeLessThan(1000); // the admitted are held until the end: a refusal that waited would never come
        }
        expect(upstream.requests).toHaveLength(capacity);

        held.open();
        for (const answer of await Promise.all(admitted)) expect(answer.body).toEqual({ data: { organization: { name: 'Org' } } });
        // The weight came back: the next request is served.
        expect((await post(LOOKUP)).body).toEqual({ data: { organization: { name: 'Org' } } });
        expect(upstream.requests).toHaveLength(capacity + 1);
        await closeAll();
      }),
      { numRuns: 6 },
    );
  });

  it('weighs a request by its fan-out estimate: one estimated past the free capacity is refused, a lookup still fits (and the metrics say so)', async () => {
    const { upstream, post, metrics } = await serve({ admissionCapacity: 3, admissionMaxWaitMs: 0 });
    const held = gate(upstream);
    const first = post(LOOKUP);
    await until(() => upstream.requests.length === 1);
    // organizations (1) + 5 × domains (5): 6 calls, clamped to the capacity of 3: more than the 2 free.
    const wide = await post('{ organizations(first: 5) { nodes { domains(first: 1) { totalCount } } } }');
    expectRefused(wide);
    expect(upstream.requests).toHaveLength(1);
    const second = post(LOOKUP);
    await until(() => upstream.requests.length === 2);
    const during = await metrics();
    expect(during).toMatch(/^gateway_admission_in_flight 2$/m);
    expect(during).toMatch(/^gateway_admission_capacity 3$/m);
    expect(during).toMatch(/^gateway_admission_top_caller_share 1$/m);
    held.open();
    expect((await first).status).toBe(200);
    expect((await second).body).toEqual({ data: { organization: { name: 'Org' } } });
    const after = await metrics();
    expect(after).toMatch(/^gateway_admission_admitted_total 2$/m);
    expect(after).toMatch(/^gateway_admission_refused_total\{reason="wait_too_long"\} 1$/m);
    expect(after).toMatch(/^gateway_admission_wait_seconds_count 2$/m);
    expect(after).toMatch(/^gateway_admission_in_flight 0$/m);
  });

  it('weighs lookups answered without an upstream call too: three project ids weigh 3, so none is free', async () => {
    const { upstream, post } = await serve({ admissionCapacity: 3, admissionMaxWaitMs: 0 });
    const held = gate(upstream);
    const first = post(LOOKUP);
    await until(() => upstream.requests.length === 1);
    const ids = ['1', '2', '3'].map((id) => Buffer.from(`Project:${id}`).toString('base64'));
    // No upstream call, but more than the 2 free: refused, as three retrieves would be.
    expectRefused(await post(`{ nodes(ids: ${JSON.stringify(ids)}) { id } }`));
    // One project fits what is free, and is answered.
    const one = await post(`{ nodes(ids: ${JSON.stringify(ids.slice(0, 1))}) { id } }`);
    expect(one.body).toEqual({ data: { nodes: [{ id: ids[0] }] } });
    expect(upstream.requests).toHaveLength(1);
    held.open();
    expect((await first).status).toBe(200);
  });

  it('refuses before reading the body once even a one-call request could not wait its turn', async () => {
    // Capacity 1, a request held: the next one is predicted to wait one hold (1 s before any has
    // ended) and is queued; after it, two holds, more than the 1.5 s allowed.
    const { upstream, post, metrics, url } = await serve({ admissionCapacity: 1, admissionMaxWaitMs: 1500 });
    const held = gate(upstream);
    const first = post(LOOKUP);
    await until(() => upstream.requests.length === 1);
    const queued = post(LOOKUP);
    while (!/^gateway_admission_queued 1$/m.test(await metrics())) await wait(5);

    // Not JSON: read, this body would be a 400 BAD_REQUEST.
    const unread = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer phx_overload_key' },
      body: '{"query": ',
    });
    expect(unread.status).toBe(503);
    expect(unread.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(await unread.json()).toEqual({
      errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'OVERLOADED' }) })],
    });
    expect(upstream.requests).toHaveLength(1);
    held.open();
    expect((await first).status).toBe(200);
    expect((await queued).body).toEqual({ data: { organization: { name: 'Org' } } });
    expect(await metrics()).toMatch(/^gateway_admission_refused_total\{reason="wait_too_long"\} 1$/m);
  });
});

describe('beside the upstream budget', () => {
  it("a request the key's budget refuses holds no admission capacity: the next caller is admitted", async () => {
    const { upstream, post } = await serve({ admissionCapacity: 1, upstreamBudget: parseUpstreamBudget('2/minute') });
    upstream.answerWith((_req, res) => sendJson(res, 200, org));
    for (let i = 0; i < 2; i++) expect((await post(LOOKUP)).body).toEqual({ data: { organization: { name: 'Org' } } });
    for (let i = 0; i < 3; i++) expect((await post(LOOKUP)).body.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    const other = await post(LOOKUP, 'phx_another_key');
    expect(other.status).toBe(200);
    expect(other.body).toEqual({ data: { organization: { name: 'Org' } } });
    expect(upstream.requests).toHaveLength(3);
  });
});

describe('REQUEST_DEADLINE_MS counts the wait for admission', () => {
  const DEADLINE_MS = 2500;

  it('a request still waiting at its deadline is refused by then, without an upstream call', async () => {
    const { upstream, post } = await serve({ admissionCapacity: 1, admissionMaxWaitMs: 10_000, requestDeadlineMs: DEADLINE_MS });
    const held = gate(upstream);
    const first = post(LOOKUP, 'phx_first_key');
    await until(() => upstream.requests.length === 1);

    const waiting = await post(LOOKUP, 'phx_waiting_key');
    expectRefused(waiting);
    expect(waiting.tookMs).toBeGreaterThan(500); // it waited: it was not refused at once
    expect(waiting.tookMs).toBeLessThan(DEADLINE_MS + LATE_MS);
    expect(callsOf(upstream, 'phx_waiting_key')).toBe(0);
    held.open();
    await first;
  });

  it('a request admitted after waiting has only what is left of its deadline for its upstream calls', async () => {
    const { upstream, post } = await serve({ admissionCapacity: 1, admissionMaxWaitMs: 10_000, requestDeadlineMs: DEADLINE_MS });
    // The first caller's call answers after 600 ms; the second's never does.
    upstream.answerWith((req, res) => {
      if (req.headers.authorization === 'Bearer phx_first_key') setTimeout(() => sendJson(res, 200, org), 600);
    });
    const first = post(LOOKUP, 'phx_first_key');
    await until(() => upstream.requests.length === 1);

    const late = await post(LOOKUP, 'phx_late_key');
    expect((await first).body).toEqual({ data: { organization: { name: 'Org' } } });
    expect(callsOf(upstream, 'phx_late_key')).toBe(1);
    expect(late.body).toMatchObject({ data: { organization: null }, errors: [{ extensions: { code: 'UPSTREAM_TIMEOUT' } }] });
    expect(late.tookMs).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(late.tookMs).toBeLessThan(DEADLINE_MS + LATE_MS);
  });
});

describe("the gateway's own queue", () => {
  it('opens no circuit breaker: calls that timed out waiting for a pooled connection do not count', async () => {
    // One pooled connection, an upstream that answers every call in 400 ms, a 600 ms timeout: of six
    // calls at once, the second waits 400 ms for the connection and times out 200 ms after it was
    // sent, the rest time out before they are sent. The upstream is healthy; only the queue is slow.
    const { upstream, gateway, post } = await serve({
      upstreamConnections: 1,
      upstreamTimeoutMs: 600,
      admissionCapacity: 10,
      circuitBreaker: { volumeThreshold: 2, errorThresholdPercentage: 1 },
    });
    upstream.answerWith((_req, res) => setTimeout(() => sendJson(res, 200, org), 400));

    const answers = await Promise.all(Array.from({ length: 6 }, () => post(LOOKUP)));
    const codes = answers.map((answer) => answer.body.errors?.[0]?.extensions.code ?? 'ok');
    expect(codes.filter((code) => code === 'ok')).toHaveLength(1);
    expect(codes.filter((code) => code === 'UPSTREAM_TIMEOUT')).toHaveLength(5);
    expect(upstream.requests.length).toBeGreaterThanOrEqual(2); // at least one timed-out call was sent
    expect(gateway.transport.circuits()).toEqual([]);
    expect((await post(LOOKUP)).body).toEqual({ data: { organization: { name: 'Org' } } });
  });
});

describe('fairness between keys', () => {
  it("one key's flood leaves another key served, ahead of the flood's queue", async () => {
    const { upstream, post } = await serve({ admissionCapacity: 2, admissionMaxWaitMs: 5000 });
    upstream.answerWith((_req, res) => setTimeout(() => sendJson(res, 200, org), 100));

    const flood = Array.from({ length: 30 }, () => post(LOOKUP, 'phx_flooding_key'));
    await until(() => upstream.requests.length === 2);
    const light = await Promise.all([post(LOOKUP, 'phx_light_key'), post(LOOKUP, 'phx_light_key')]);
    const flooded = await Promise.all(flood);

    for (const answer of light) expect(answer.body).toEqual({ data: { organization: { name: 'Org' } } });
    expect(callsOf(upstream, 'phx_light_key')).toBe(2);
    const served = flooded.filter((answer) => answer.status === 200);
    const refused = flooded.filter((answer) => answer.status === 503);
    for (const answer of refused) expectRefused(answer);
    expect(served.length + refused.length).toBe(30);
    expect(callsOf(upstream, 'phx_flooding_key')).toBe(served.length);
    // Round robin: the light key's requests did not wait behind the flood's whole queue.
    const lastFloodServed = Math.max(...served.map((answer) => answer.endedAt));
    for (const answer of light) expect(answer.endedAt).toBeLessThan(lastFloodServed);
  });
});

describe('an execution that never ends', () => {
  // A transport that never answers and ignores every signal stands for a defect above the deadline
  // clock (graphql-jit once never answered a mutation): its requests must not hold capacity for ever.
  it('is answered "Unexpected error." once well past its deadline, logged, and gives its admission weight back', async () => {
    const log = captureLogger();
    const sent: string[] = [];
    gateway = createGateway({
      upstreamUrl: 'http://127.0.0.1:9/',
      logger: log.logger,
      transport: {
        request: (req) => {
          sent.push(`${req.method} ${req.path}`);
          return new Promise(() => undefined);
        },
        close: () => Promise.resolve(),
      },
      admissionCapacity: 2,
      requestDeadlineMs: 200,
      upstreamTimeoutMs: 100,
    });
    const target = gateway;
    const ask = async (requestId: string) => {
      const startedAt = performance.now();
      const response = await target.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer phx_stuck', 'x-request-id': requestId },
        body: JSON.stringify({ query: LOOKUP }),
      });
      return { status: response.status, body: (await response.json()) as Answer['body'], tookMs: performance.now() - startedAt };
    };
    const stuck = await Promise.all([ask('stuck-1'), ask('stuck-2')]);
    for (const answer of stuck) {
      expect(answer.status).toBe(200);
      expect(answer.body.errors).toEqual([{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }]);
      // Its deadline (200 ms), UPSTREAM_TIMEOUT_MS (100) and the 2 s margin; never before.
      expect(answer.tookMs).toBeGreaterThanOrEqual(2300 - LATE_MS);
      expect(answer.tookMs).toBeLessThan(2300 + 2000);
    }
    expect(sent).toEqual([`GET /api/organizations/${ORG}/`, `GET /api/organizations/${ORG}/`]);
    const errors = log.lines.filter((line) => line.level === 'error' && String(line.msg).startsWith('an execution was still running'));
    expect(errors.map((line) => line.requestId).sort()).toEqual(['stuck-1', 'stuck-2']);
    // Their weight is back: the capacity of 2 admits again.
    expect(await metricValue(target, 'gateway_admission_in_flight')).toBe(0);
  });
});
