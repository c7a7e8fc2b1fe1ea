// Round trips to Redis per request, counted on the wire (a relay between the gateway and its own
// redis-server): a request's lookups go out once per level, its answers are written together when
// it ends, a request that shared another's call neither waits for that request to end nor leaves
// the answer unwritten, and a subscription poll's answer is written once the poll is done.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUpstreamBudget } from '../../src/config/upstream-budget.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { serveOverHttp } from '../support/http-server.ts';
import { type RedisServer, startRedisServer } from '../support/redis-server.ts';
import { sendJson } from '../support/scripted-answers.ts';
import { subscribe } from '../support/sse.ts';
import { startTcpCounter, type TcpCounter } from '../support/tcp-counter.ts';
import { sources, testGateway, twoInstances, untilStoreReachable } from './support.ts';

/** The canonical dashboard (bench/lib/queries.ts): 1 organizations page, then 4 lists per organization. */
const DASHBOARD = `{ organizations(first: 5) { nodes { id name
  batchExports(first: 10) { nodes { id name paused interval } }
  domains(first: 5) { nodes { id domain } }
  members(first: 10) { nodes { id user { email } } }
  pipelineDestinations(first: 10) { nodes { id name } } } } }`;
const NO_BUDGET_REPORT = { headers: { 'x-upstream-budget': '0' } };

let api: ReferenceApi;
let redis: RedisServer;
let relay: TcpCounter;

beforeAll(async () => {
  [api, redis] = await Promise.all([startReferenceApi(), startRedisServer()]);
  relay = await startTcpCounter(redis.port);
});

afterAll(async () => {
  await relay?.close();
  await redis?.close();
  await api?.close();
});

describe('store round trips per request', () => {
  it('a cold dashboard: its budget, one lookup per level and one write of all its answers; warm: no write', async () => {
    const target = testGateway({
      upstreamUrl: api.url,
      cache: { store: `redis://127.0.0.1:${relay.port}/0`, ttlMs: 60_000 },
      upstreamBudget: parseUpstreamBudget('480/minute'),
    });
    try {
      await untilStoreReachable(target);
      // The write feed's own connection goes through the relay too: its handshake is done before counting.
      await redis.untilSubscribed('gw:writes', 1);
      const stores = async () => Number(/^cmdstat_set:calls=(\d+),/m.exec(await redis.client().info('commandstats'))?.[1] ?? 0);
      const setsBefore = await stores();
      relay.reset();
      const cold = await target.post(DASHBOARD, api.keys.demo, NO_BUDGET_REPORT);
      expect(cold.body.errors).toBeUndefined();
      const organizations = cold.body.data.organizations.nodes.length;
      expect(organizations).toBeGreaterThanOrEqual(2);
      const calls = 1 + 4 * organizations;
      expect(sources(cold.body)).toEqual(Array(calls).fill('upstream'));
      // The budget's reservation (1); per level, the entries' and the generations' reads, issued
      // together (2 × 2); every answer at once (1).
      expect(relay.writes).toBeLessThanOrEqual(6);
      expect((await stores()) - setsBefore).toBe(calls);

      relay.reset();
      const warm = await target.post(DASHBOARD, api.keys.demo, NO_BUDGET_REPORT);
      expect(sources(warm.body)).toEqual(Array(calls).fill('cache'));
      expect(relay.writes).toBeLessThanOrEqual(5);
      expect((await stores()) - setsBefore).toBe(calls);
    } finally {
      await target.gateway.close();
    }
  });

  it('a request that shared another’s call answers without waiting for it to end, and the answer is stored for the next', async () => {
    const slow = await referenceApiBehind(1500);
    const options = { upstreamUrl: slow.url, cache: { store: redis.url, ttlMs: 60_000 } };
    const [one, two] = await twoInstances(options);
    try {
      const key = api.keys.member;
      let slowDone = false;
      const slowQuery = one.post('{ organizations(first: 1) { nodes { name batchExports(first: 1) { totalCount } } } }', key);
      void slowQuery.then(() => (slowDone = true));
      const quick = await one.post('{ organizations(first: 1) { nodes { name } } }', key);
      expect(sources(quick.body)).toEqual(['coalesced']);
      const next = await two.post('{ organizations(first: 1) { nodes { name } } }', key);
      expect(sources(next.body)).toEqual(['cache']);
      expect(slowDone).toBe(false);
      const first = await slowQuery;
      expect(first.body.errors).toBeUndefined();
      expect(sources(first.body)).toEqual(['upstream', 'upstream']);
    } finally {
      await one.gateway.close();
      await two.gateway.close();
      await slow.close();
    }
  });

  it('an answer written as its request ends still expires CACHE_TTL_MS after the upstream gave it', async () => {
    let version = 1;
    // The organizations page at once, its names marked with the upstream's version.
    const slow = await referenceApiBehind(2000, (path, body) => {
      if (path === '/api/organizations/') for (const org of body.results ?? []) org.name = `${org.name} v${version}`;
    });
    const options = { upstreamUrl: slow.url, cache: { store: redis.url, ttlMs: 500 } };
    const [one, two] = await twoInstances(options);
    try {
      const key = api.keys.member;
      // Page sizes no other test reads: nothing of them is cached yet.
      const long = await one.post('{ organizations(first: 3) { nodes { name batchExports(first: 3) { nodes { id } } } } }', key);
      expect(long.body.data.organizations.nodes[0].name).toMatch(/ v1$/);
      version = 2; // changed outside the gateway ~2 s after the page was fetched: past its 500 ms
      const read = await two.post('{ organizations(first: 3) { nodes { name } } }', key);
      expect(sources(read.body)).toEqual(['upstream']);
      expect(read.body.data.organizations.nodes[0].name).toMatch(/ v2$/);
    } finally {
      await one.gateway.close();
      await two.gateway.close();
      await slow.close();
    }
  });

  it('a subscription poll’s answer is stored: another instance’s query finds it', async () => {
    const options = { upstreamUrl: api.url, cache: { store: redis.url, ttlMs: 60_000 }, subscriptions: { pollMs: 60_000 } };
    const [one, two] = await twoInstances(options);
    const served = await serveOverHttp(one.gateway);
    try {
      const key = api.keys.demo;
      const listed = await two.post('{ organizations(first: 1) { nodes { batchExports(first: 1) { nodes { id name } } } } }', key);
      const { id, name } = listed.body.data.organizations.nodes[0].batchExports.nodes[0];
      const subscription = await subscribe(served.url, 'subscription ($id: ID!) { batchExport(id: $id) { name } }', { id }, key);
      expect(await subscription.waitForEvents(1, 4000)).toEqual([{ data: { batchExport: { name } } }]);
      await subscription.close();
      const read = await two.post('query ($id: ID!) { node(id: $id) { ... on BatchExport { name } } }', key, { variables: { id } });
      expect(read.body.data).toEqual({ node: { name } });
      expect(sources(read.body)).toEqual(['cache']);
    } finally {
      await served.close();
      await one.gateway.close();
      await two.gateway.close();
    }
  });
});

/** A second reference API whose scripted answer relays to `api`: batch exports lists `delayMs` late, and `edit` may change an answer. */
async function referenceApiBehind(delayMs: number, edit?: (path: string, body: { results?: { name: string }[] }) => void) {
  const upstream = await startReferenceApi();
  upstream.answerWith(async (req, res) => {
    if (req.path.endsWith('/batch_exports/')) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const answer = await fetch(`${api.url}${req.path}?${new URLSearchParams(req.query)}`, {
      headers: { authorization: String(req.headers.authorization) },
    });
    const body = (await answer.json()) as { results?: { name: string }[] };
    edit?.(req.path, body);
    sendJson(res, answer.status, body);
  });
  return upstream;
}
