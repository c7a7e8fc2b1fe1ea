// Two gateway instances on one Redis (a redis-server of this spec's own) and one reference API: a
// write through one is seen by the next read through the other at once, the budget is one per key
// across instances, a key never sees another key's answers, nothing in Redis holds a key, an
// outage loses no request and ends when Redis is back, and CACHE_SECRET is what caller tags are
// made with (instances share entries only under the same secret).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerTag } from '../../src/caller.ts';
import { parseUpstreamBudget } from '../../src/config/upstream-budget.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { createRedisStore } from '../../src/store/redis-store.ts';
import type { SharedStore } from '../../src/store/shared-store.ts';
import { captureLogger } from '../ops/support.ts';
import { metricValue } from '../support/metrics.ts';
import { type RedisServer, startRedisServer } from '../support/redis-server.ts';
import { forbiddenForms, sources, type TestGateway, testGateway, twoInstances, untilStoreReachable } from './support.ts';

const EXPORTS = `query Exports($org: UUID!) { organization(databaseId: $org) { name batchExports(first: 5) { nodes { id name paused } } } }`;
const ORGANIZATION_NAMES = '{ organizations { nodes { name } } }';
const PAUSE = `mutation Pause($id: ID!) { pauseBatchExport(input: { id: $id }) { __typename ... on PauseBatchExportPayload { batchExport { paused } } } }`;
const UNPAUSE = `mutation Unpause($id: ID!) { unpauseBatchExport(input: { id: $id }) { __typename ... on UnpauseBatchExportPayload { batchExport { paused } } } }`;

let api: ReferenceApi;
let redis: RedisServer;
let one: TestGateway;
let two: TestGateway;
let hedgehog: string;

beforeAll(async () => {
  [api, redis] = await Promise.all([startReferenceApi(), startRedisServer()]);
  const options = { upstreamUrl: api.url, cache: { store: redis.url, ttlMs: 60_000 } };
  [one, two] = await twoInstances(options);
  hedgehog = api.store.organizationsOf(1).find((org) => org.name === 'Hedgehog Analytics')?.id as string;
});

afterAll(async () => {
  await one?.gateway.close();
  await two?.gateway.close();
  await redis?.close();
  await api?.close();
});

/** Reads made with a key since `from` (readiness probes the upstream without one). */
const getsSince = (from: number) => api.requests.slice(from).filter((request) => request.method === 'GET' && request.headers.authorization);

describe('two instances on one Redis', () => {
  it('a mutation through instance 1 is seen by the next read through instance 2 at once', async () => {
    const key = api.keys.demo;
    const variables = { org: hedgehog };
    const start = api.requests.length;
    const first = await two.post(EXPORTS, key, { variables });
    expect(first.body.errors).toBeUndefined();
    expect(sources(first.body)).toEqual(['upstream', 'upstream']);
    const cached = await one.post(EXPORTS, key, { variables });
    expect(sources(cached.body)).toEqual(['cache', 'cache']);
    expect(cached.body.data).toEqual(first.body.data);
    expect(getsSince(start)).toHaveLength(2);

    const target = first.body.data.organization.batchExports.nodes[0];
    const written = await one.post(target.paused ? UNPAUSE : PAUSE, key, { variables: { id: target.id } });
    expect(written.body.data).toMatchObject({
      [target.paused ? 'unpauseBatchExport' : 'pauseBatchExport']: { batchExport: { paused: !target.paused } },
    });

    const afterWrite = api.requests.length;
    const next = await two.post(EXPORTS, key, { variables });
    expect(sources(next.body)).toEqual(['upstream', 'upstream']);
    expect(getsSince(afterWrite).map((request) => request.path)).toEqual([
      `/api/organizations/${hedgehog}/`,
      `/api/organizations/${hedgehog}/batch_exports/`,
    ]);
    expect(next.body.data.organization.batchExports.nodes[0]).toEqual({ ...target, paused: !target.paused });
    // Another key's answers under the same organization were made stale too.
    const member = await one.post(EXPORTS, api.keys.member, { variables });
    expect(member.body.data.organization.batchExports.nodes[0].paused).toBe(!target.paused);
  });

  it('a second key never sees the first key’s cached answers', async () => {
    const start = api.requests.length;
    const demo = await one.post(ORGANIZATION_NAMES, api.keys.demo);
    const outsider = await two.post(ORGANIZATION_NAMES, api.keys.outsider);
    const member = await one.post(ORGANIZATION_NAMES, api.keys.member);
    expect(demo.body.data.organizations.nodes.map((org: { name: string }) => org.name)).toEqual(['Hedgehog Analytics', 'Prickly Labs']);
    expect(outsider.body.data.organizations.nodes.map((org: { name: string }) => org.name)).toEqual(['Elsewhere Inc']);
    expect(member.body.data.organizations.nodes.map((org: { name: string }) => org.name)).toEqual(['Hedgehog Analytics']);
    expect([outsider, member].map((response) => sources(response.body))).toEqual([['upstream'], ['upstream']]);
    // Each key's own call, with its own key.
    const calls = api.requests.slice(start).filter((request) => request.path === '/api/organizations/');
    expect(calls.map((request) => request.headers.authorization)).toEqual(
      expect.arrayContaining([`Bearer ${api.keys.outsider}`, `Bearer ${api.keys.member}`]),
    );
    // And each key's answer is cached for that key alone, on either instance.
    expect(sources((await two.post(ORGANIZATION_NAMES, api.keys.member)).body)).toEqual(['cache']);
  });

  it('shares one budget per key: calls through instance 1 leave less for instance 2, and cache hits cost nothing', async () => {
    // Hour windows and a key no other test uses: counters of their own in the shared Redis.
    const options = { upstreamUrl: api.url, cache: { store: redis.url, ttlMs: 60_000 }, upstreamBudget: parseUpstreamBudget('5/hour') };
    const b1 = testGateway(options);
    const b2 = testGateway(options);
    try {
      await Promise.all([untilStoreReachable(b1), untilStoreReachable(b2)]);
      const key = api.keys.readOnly;
      const query = '{ organizations(first: 3) { nodes { name domains(first: 1) { totalCount } } } }'; // estimate 1 + 3, 3 calls on the demo data
      const used = await b1.post(query, key);
      expect(used.body.errors).toBeUndefined();
      expect(sources(used.body)).toEqual(['upstream', 'upstream', 'upstream']);
      expect(used.body.extensions.upstreamBudget).toEqual([{ per: 'hour', limit: 5, remaining: 2 }]);

      const start = api.requests.length;
      const refused = await b2.post(query, key);
      expect(refused.body.data ?? null).toBeNull();
      expect(refused.body.errors).toHaveLength(1);
      expect(refused.body.errors?.[0].extensions).toMatchObject({
        code: 'RATE_LIMITED',
        limit: 'upstreamBudget',
        retryAfter: expect.any(Number),
      });
      expect(refused.body.errors?.[0].extensions.retryAfter).toBeGreaterThanOrEqual(1);
      expect(refused.body.extensions.upstreamBudget).toEqual([{ per: 'hour', limit: 5, remaining: 2 }]);
      expect(api.requests.length).toBe(start);

      // The organizations page b1 fetched is cached: on b2 it costs nothing.
      const hit = await b2.post('{ organizations(first: 3) { nodes { name } } }', key);
      expect(sources(hit.body)).toEqual(['cache']);
      expect(hit.body.extensions.upstreamBudget).toEqual([{ per: 'hour', limit: 5, remaining: 2 }]);
      expect(api.requests.length).toBe(start);

      // A request that calls nothing makes no counter, whatever key it carries.
      const client = redis.client();
      const counters = async () => (await client.keys('gw:{*}:budget:*')).sort();
      const before = await counters();
      expect((await b2.post('{ __typename }', 'phx_made_up_key')).body.data).toEqual({ __typename: 'Query' });
      expect(await counters()).toEqual(before);
    } finally {
      await b1.gateway.close();
      await b2.gateway.close();
    }
  });

  it('keeps neither a key nor a plain digest of one anywhere in Redis, keys or values', async () => {
    const client = redis.client();
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await client.scan(cursor, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    // Not vacuous: answers, generations, budget counters and the shared secret are all there.
    for (const kind of [/^gw:\{[\w-]{22}\}:get:\/api\//, /^gw:\{gen\}:org:/, /^gw:\{[\w-]{22}\}:budget:3600000:/, /^gw:\{secret\}$/]) {
      expect(
        keys.filter((name) => kind.test(name)),
        `${kind} among ${keys.join(', ')}`,
      ).not.toEqual([]);
    }
    const values = await Promise.all(keys.map((name) => client.get(name)));
    const stored = [...keys, ...values.map(String)].join('\n');
    for (const { key } of api.allKeys) {
      for (const form of forbiddenForms(key)) expect(stored).not.toContain(form);
    }
  });

  it('never makes a request wait on a frozen Redis longer than CACHE_TIMEOUT_MS, and uses it again once it answers', async () => {
    const frozen = testGateway({ upstreamUrl: api.url, cache: { store: redis.url, ttlMs: 60_000, timeoutMs: 100 } });
    try {
      await untilStoreReachable(frozen);
      const key = api.keys.outsider;
      await frozen.post(ORGANIZATION_NAMES, key);
      expect(sources((await frozen.post(ORGANIZATION_NAMES, key)).body)).toEqual(['cache']);
      redis.freeze();
      const timed = async () => {
        const started = performance.now();
        const response = await frozen.post(ORGANIZATION_NAMES, key);
        expect(response.body.data.organizations.nodes).toEqual([{ name: 'Elsewhere Inc' }]);
        expect(sources(response.body)).toEqual(['upstream']);
        return performance.now() - started;
      };
      const failures = () => metricValue(frozen.gateway, 'gateway_cache_store_failures_total');
      // The first waits for one lookup to time out; then the store is set aside and nothing waits
      // on it (no operation is even tried, but the probe's once a second).
      expect(await timed()).toBeLessThan(100 + 400);
      const failed = await failures();
      expect(failed).toBeGreaterThan(0);
      for (let i = 0; i < 3; i += 1) expect(await timed()).toBeLessThan(400);
      expect(await failures()).toBeLessThanOrEqual(failed + 1);
      expect((await frozen.readiness()).body.cache).toEqual({ store: 'redis', reachable: false });
    } finally {
      redis.thaw();
    }
    await untilStoreReachable(frozen);
    expect(sources((await frozen.post(ORGANIZATION_NAMES, api.keys.outsider)).body)).toEqual(['cache']);
    await frozen.gateway.close();
  });

  it('loses no request while Redis is down (cache bypassed, one warning per instance) and caches again once it is back', async () => {
    const key = api.keys.demo;
    await redis.stop();
    const start = api.requests.length;
    const during = await Promise.all([one, two, one, two, one, two].map((target) => target.post(ORGANIZATION_NAMES, key)));
    for (const response of during) {
      expect(response.body.errors).toBeUndefined();
      expect(response.body.data.organizations.nodes).toHaveLength(2);
    }
    expect(during.flatMap((response) => sources(response.body)).every((source) => source !== 'cache')).toBe(true);
    expect(getsSince(start).length).toBeGreaterThan(0);
    const more = await one.post(ORGANIZATION_NAMES, key);
    expect(sources(more.body)).toEqual(['upstream']);
    for (const target of [one, two]) {
      expect(target.log.lines.filter((line) => line.msg.startsWith('cache store unreachable'))).toHaveLength(1);
      expect(await target.readiness()).toMatchObject({
        status: 200,
        body: { status: 'ready', cache: { store: 'redis', reachable: false } },
      });
      const { body: metrics } = await target.gateway.metrics.render();
      expect(metrics).toMatch(/^gateway_cache_store_up 0$/m);
      expect(metrics).toMatch(/^gateway_cache_store_failures_total [1-9]/m);
    }

    await redis.start();
    await Promise.all([untilStoreReachable(one), untilStoreReachable(two)]);
    for (const target of [one, two]) {
      expect(target.log.lines.filter((line) => line.msg === 'cache store reachable again')).toHaveLength(1);
    }
    expect(sources((await one.post(ORGANIZATION_NAMES, key)).body)).toEqual(['upstream']);
    expect(sources((await two.post(ORGANIZATION_NAMES, key)).body)).toEqual(['cache']);
  });
});

describe('CACHE_SECRET', () => {
  it('is the secret caller tags are made with: instances with the same one share entries, another secret shares none', async () => {
    const secret = 'some-secret-of-this-spec';
    const options = (withSecret: string) => ({ upstreamUrl: api.url, cache: { store: redis.url, ttlMs: 60_000, secret: withSecret } });
    const [first, second] = await twoInstances(options(secret));
    const other = testGateway(options('another-secret-of-this-spec'));
    try {
      await untilStoreReachable(other);
      const key = api.keys.organizationRead as string;
      const client = redis.client();
      const keysOf = async (tagged: string) => (await client.keys(`gw:{${tagged}}:*`)).sort();
      const tag = callerTag(secret, key);
      const otherTag = callerTag('another-secret-of-this-spec', key);
      expect(await keysOf(tag)).toEqual([]);

      const start = api.requests.length;
      const read = await first.post(ORGANIZATION_NAMES, key);
      expect(read.body.errors).toBeUndefined();
      expect(sources(read.body)).toEqual(['upstream']);
      expect(await keysOf(tag)).toEqual([expect.stringMatching(/^gw:\{[\w-]{22}\}:get:\/api\/organizations\//)]);
      const everything = await client.keys('gw:*');
      const values = await Promise.all(everything.map((name) => client.get(name).catch(() => '')));
      for (const form of forbiddenForms(key)) expect([...everything, ...values.map(String)].join('\n')).not.toContain(form);

      // The same secret on another instance: the same tag, the same entry.
      const shared = await second.post(ORGANIZATION_NAMES, key);
      expect(sources(shared.body)).toEqual(['cache']);
      expect(shared.body.data).toEqual(read.body.data);
      expect(getsSince(start)).toHaveLength(1);

      // Another secret: another tag, so its own upstream call and its own entry.
      const apart = await other.post(ORGANIZATION_NAMES, key);
      expect(sources(apart.body)).toEqual(['upstream']);
      expect(apart.body.data).toEqual(read.body.data);
      expect(getsSince(start).map((request) => request.headers.authorization)).toEqual([`Bearer ${key}`, `Bearer ${key}`]);
      expect(await keysOf(otherTag)).toHaveLength(1);
      expect(await keysOf(tag)).toHaveLength(1);
    } finally {
      for (const instance of [first, second, other]) await instance.gateway.close();
    }
  });
});

describe('the Redis store', () => {
  it('makes a bump deferred while its recovery is making the bumps it missed', async () => {
    const own = await startRedisServer();
    const client = own.client();
    let store: SharedStore | undefined;
    const deferredBump = () => store?.bumpGenerations(['org:x']).catch(() => 'deferred');
    try {
      // The store's secret is given: its recovery sends nothing but a PING and the bumps it missed.
      store = createRedisStore({
        url: own.url,
        timeoutMs: 10_000,
        secret: 'a-secret-of-this-test-only',
        logger: captureLogger('info').logger,
        // The moment it is set aside, a bump comes in: kept for its recovery.
        onChange: (up) => void (up || deferredBump()),
      });
      const stored = store;
      await until(() => stored.available);
      await client.config('RESETSTAT');
      // Writes are held, so the recovery's bumps stay in flight until released.
      await client.call('CLIENT', 'PAUSE', '60000', 'WRITE');
      const storeConnection = async () =>
        String(await client.call('CLIENT', 'LIST'))
          .split('\n')
          .find((line) => line.includes(' name=org-graphql-gateway '));
      const id = /^id=(\d+) /.exec((await storeConnection()) as string)?.[1] as string;
      await client.call('CLIENT', 'KILL', 'ID', id);
      // The store reconnected, and its recovery's SET is held.
      await untilAsync(async () => / flags=b .* cmd=set /.test((await storeConnection()) ?? ''));
      expect(await deferredBump()).toBe('deferred');
      await client.call('CLIENT', 'UNPAUSE');
      await until(() => stored.available);
      // Both bumps made: one by the recovery's first round, one by its second.
      expect(/^cmdstat_set:calls=(\d+),/m.exec(await client.info('commandstats'))?.[1]).toBe('2');
    } finally {
      await client.call('CLIENT', 'UNPAUSE').catch(() => undefined);
      await store?.close();
      await own.close();
    }
  });
});

async function until(condition: () => boolean): Promise<void> {
  await untilAsync(async () => condition());
}

async function untilAsync(condition: () => Promise<boolean>, withinMs = 5000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
