// A batch under UPSTREAM_BUDGET (contract: Batching): the summed estimate is reserved at once, before
// any operation runs, or the batch is refused whole (HTTP 400, RATE_LIMITED) with no upstream call;
// its operations draw from that reservation, and what they did not use is settled back once the
// batch is answered. Over HTTP against the reference API, in memory and on a real Redis.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseUpstreamBudget } from '../../src/config/upstream-budget.ts';
import { type HttpHarness, startHttpHarness } from '../support/http-server.ts';
import { type RedisServer, startRedisServer } from '../support/redis-server.ts';

/** Estimate 3 (the organizations, the domains of each of two), 3 calls on the demo key's two organizations. */
const EXACT = '{ organizations(first: 2) { nodes { domains(first: 1) { totalCount } } } }';
/** Estimate 4 (one domains list for each of three), 3 calls: the demo key has two organizations. */
const OVER = '{ organizations(first: 3) { nodes { domains(first: 1) { totalCount } } } }';

const post = (h: HttpHarness, body: unknown, headers: Record<string, string> = {}) =>
  fetch(h.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${h.api.keys.demo}`,
      'x-upstream-budget': '1',
      ...headers,
    },
    body: JSON.stringify(body),
  });

/** What is left of the demo key's budget now (a request that calls nothing reports it). */
const remaining = async (h: HttpHarness) => (await (await post(h, { query: '{ __typename }' })).json()).extensions.upstreamBudget;

describe('in this instance’s memory', () => {
  let h: HttpHarness;
  beforeAll(async () => {
    h = await startHttpHarness({}, { upstreamBudget: parseUpstreamBudget('10/minute') });
  });
  afterAll(() => h?.close());
  beforeEach(() => h.api.clearRequests());

  it('refuses whole, with no upstream call, a batch whose sum does not fit what is left though each operation would', async () => {
    expect((await (await post(h, { query: EXACT })).json()).extensions.upstreamBudget).toEqual([
      { per: 'minute', limit: 10, remaining: 7 },
    ]);
    h.api.clearRequests();

    const response = await post(h, [{ query: EXACT }, { query: EXACT }, { query: EXACT }]);
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(Array.isArray(body)).toBe(false);
    expect(body.errors).toEqual([
      {
        message: expect.stringMatching(
          /^This key's upstream budget is used up for now: the batch may make 9 upstream calls, and 7 of 10 per minute are left\. Retry after \d+ seconds?\.$/,
        ),
        extensions: { code: 'RATE_LIMITED', limit: 'upstreamBudget', retryAfter: expect.any(Number) },
      },
    ]);
    expect(h.api.requests).toEqual([]);
    // Nothing was reserved: each operation alone still fits, and runs.
    expect(await remaining(h)).toEqual([{ per: 'minute', limit: 10, remaining: 7 }]);
    const alone = await (await post(h, { query: EXACT })).json();
    expect(alone.errors).toBeUndefined();
    expect(alone.extensions.upstreamBudget).toEqual([{ per: 'minute', limit: 10, remaining: 4 }]);
    expect(h.api.requests).toHaveLength(3);

    // A sum over the window's whole limit never fits: refused for good, without retryAfter.
    h.api.clearRequests();
    const never = await post(h, [{ query: OVER }, { query: OVER }, { query: OVER }]);
    expect(never.status).toBe(400);
    expect((await never.json()).errors).toEqual([
      {
        message:
          "This batch may make 12 upstream calls, more than this key's whole upstream budget of 10 per minute: it cannot run under it. " +
          'Ask for smaller pages, fewer nested lists or fewer records by id.',
        extensions: { code: 'RATE_LIMITED', limit: 'upstreamBudget', reason: 'OVER_WINDOW_LIMIT' },
      },
    ]);
    expect(h.api.requests).toEqual([]);
    const { body: metrics } = await h.gateway.metrics.render();
    expect(metrics).toMatch(/^gateway_upstream_budget_refusals_total 2$/m);
  });
});

describe('a batch within the budget', () => {
  let h: HttpHarness;
  beforeAll(async () => {
    h = await startHttpHarness({}, { upstreamBudget: parseUpstreamBudget('30/minute') });
  });
  afterAll(() => h?.close());

  it('reserves the sum, persisted entries included, before any operation runs, and settles the unused calls back', async () => {
    const hash = await sha256(OVER);
    const persisted = { extensions: { persistedQuery: { version: 1, sha256Hash: hash } } };
    // Registered on its own first (APQ): estimate 4, 3 calls made, 27 left.
    const registered = await (await post(h, { query: OVER, ...persisted })).json();
    expect(registered.extensions.upstreamBudget).toEqual([{ per: 'minute', limit: 30, remaining: 27 }]);
    h.api.clearRequests();

    // 3 + 4 by hash + 3: 10 reserved at once. Every slot reports what was left once the whole sum
    // was reserved (operations reserving one after another would each report a different amount).
    const response = await post(h, [{ query: EXACT }, persisted, { query: EXACT }]);
    expect(response.status).toBe(200);
    const slots = await response.json();
    expect(slots.map((slot: { errors?: unknown }) => slot.errors)).toEqual([undefined, undefined, undefined]);
    expect(slots.map((slot: { extensions: { upstreamBudget: unknown } }) => slot.extensions.upstreamBudget)).toEqual(
      Array(3).fill([{ per: 'minute', limit: 30, remaining: 17 }]),
    );
    // 9 calls made: the one the persisted operation did not make goes back once the batch is answered.
    expect(h.api.requests).toHaveLength(9);
    expect(await remaining(h)).toEqual([{ per: 'minute', limit: 30, remaining: 18 }]);
  });
});

describe('on a shared Redis', () => {
  let redis: RedisServer;
  let h: HttpHarness;
  beforeAll(async () => {
    redis = await startRedisServer();
    h = await startHttpHarness({}, { cache: { store: redis.url, ttlMs: 60_000 }, upstreamBudget: parseUpstreamBudget('100/hour') });
    await untilStoreReachable(h);
  });
  afterAll(async () => {
    await h?.close();
    await redis?.close();
  });

  /** Budget scripts Redis has run (a reservation or a settle is one each). */
  const scriptCalls = async () => {
    const stats = await redis.client().info('commandstats');
    let calls = 0;
    for (const match of stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+),/gm)) calls += Number(match[1]);
    return calls;
  };
  /** The demo key's calls counted in Redis this hour (its only budget counter). */
  const counted = async () => {
    const client = redis.client();
    const [key, ...others] = await client.keys('gw:{*}:budget:*');
    expect(others).toEqual([]);
    return Number(await client.get(key as string));
  };

  it('reserves a batch in one store round trip and settles it in one more', async () => {
    // Warms the scripts up (ioredis loads each on its first use): a reservation, and a settle.
    expect((await (await post(h, { query: OVER })).json()).extensions.upstreamBudget).toEqual([{ per: 'hour', limit: 100, remaining: 97 }]);
    expect(await counted()).toBe(3);
    const before = await scriptCalls();
    h.api.clearRequests();

    // Five operations, estimates 4 to 8: 30 reserved at once. Pages they share with each other or the
    // first request are answered from the cache, or by one call for all: fewer calls are made.
    const batch = [1, 2, 3, 4, 5].map((n) => ({
      query: `{ organizations(first: ${n + 2}) { nodes { domains(first: ${n + 1}) { totalCount } } } }`,
    }));
    const slots = await (await post(h, batch)).json();
    expect(slots.map((slot: { extensions: { upstreamBudget: unknown } }) => slot.extensions.upstreamBudget)).toEqual(
      Array(5).fill([{ per: 'hour', limit: 100, remaining: 97 - 30 }]),
    );
    const made = h.api.requests.length;
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(30);
    // Settled: what is counted is what was made; the reservation and the settle are one script each.
    expect(await remaining(h)).toEqual([{ per: 'hour', limit: 100, remaining: 97 - made }]);
    expect(await counted()).toBe(3 + made);
    expect((await scriptCalls()) - before).toBe(2);
  });

  it('an APQ entry, whose text is in Redis and unknown before it runs, reserves its own estimate when it runs; both are settled', async () => {
    const query = '{ organizations(first: 9) { nodes { domains(first: 9) { totalCount } } } }'; // estimate 10
    const persisted = { extensions: { persistedQuery: { version: 1, sha256Hash: await sha256(query) } } };
    expect((await (await post(h, { query, ...persisted })).json()).errors).toBeUndefined();
    const left = (await remaining(h))[0].remaining;
    h.api.clearRequests();

    // The batch reserves 4 (the entry sent as text); the entry by hash takes its 10 when it runs.
    const slots = await (await post(h, [{ query: OVER.replace('domains(first: 1)', 'domains(first: 8)') }, persisted])).json();
    expect(slots.map((slot: { errors?: unknown }) => slot.errors)).toEqual([undefined, undefined]);
    expect(slots[1].data.organizations.nodes).toHaveLength(2);
    // Both reservations settled to the calls made (the entry by hash was answered from the cache).
    const made = h.api.requests.length;
    expect(made).toBeLessThan(4);
    expect(await remaining(h)).toEqual([{ per: 'hour', limit: 100, remaining: left - made }]);
  });
});

/** Until the gateway's /readiness reports its store reachable. */
async function untilStoreReachable(h: HttpHarness, withinMs = 5000): Promise<void> {
  const deadline = Date.now() + withinMs;
  const readiness = h.url.replace(/\/graphql$/, '/readiness');
  while ((await (await fetch(readiness)).json()).cache?.reachable !== true) {
    if (Date.now() > deadline) throw new Error('the cache store did not become reachable');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Buffer.from(digest).toString('hex');
}
