// The same store code on a Redis Cluster (three masters of the spec's own, CACHE=redis-cluster://…),
// where a command, script or pipeline spanning two hash slots fails: two instances share cached
// answers with read-your-writes, one budget per key, idempotent mutations, persisted queries and
// the write feed, and neither instance's store ever failed.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseUpstreamBudget } from '../../src/config/upstream-budget.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { domainInput, post as postMutation } from '../idempotency/support.ts';
import { serveOverHttp } from '../support/http-server.ts';
import { type RedisCluster, startRedisCluster } from '../support/redis-cluster.ts';
import { subscribe } from '../support/sse.ts';
import { sources, type TestGateway, twoInstances } from './support.ts';

const EXPORTS = `query Exports($org: UUID!) { organization(databaseId: $org) { batchExports(first: 5) { nodes { id name paused } } } }`;
const PAUSE = `mutation Pause($id: ID!) { pauseBatchExport(input: { id: $id }) { __typename } }`;

let api: ReferenceApi;
let cluster: RedisCluster;
let one: TestGateway;
let two: TestGateway;
let hedgehog: string;

beforeAll(async () => {
  [api, cluster] = await Promise.all([startReferenceApi(), startRedisCluster()]);
  // A generous store timeout: a loaded test machine must not set the store aside, which would hide nothing here but flake.
  const options = {
    upstreamUrl: api.url,
    cache: { store: cluster.url, ttlMs: 60_000, timeoutMs: 2000 },
    upstreamBudget: parseUpstreamBudget('1000/hour'),
    subscriptions: { pollMs: 60_000 },
  };
  [one, two] = await twoInstances(options);
  hedgehog = api.store.organizationsOf(1).find((org) => org.name === 'Hedgehog Analytics')?.id as string;
});

afterAll(async () => {
  await one?.gateway.close();
  await two?.gateway.close();
  await cluster?.close();
  await api?.close();
});

/** `gateway_cache_store_failures_total` of an instance: every CROSSSLOT error would count here. */
async function storeFailures(target: TestGateway): Promise<number> {
  const metrics = await (await target.gateway.yoga.fetch('http://gateway.test/metrics')).text();
  return Number(/^gateway_cache_store_failures_total (\d+)/m.exec(metrics)?.[1] ?? Number.NaN);
}

describe('two instances on a Redis Cluster', () => {
  it('share answers, see each other’s writes at once and the write feed, and count one budget', async () => {
    const key = api.keys.demo;
    const cold = await one.post(EXPORTS, key, { variables: { org: hedgehog } });
    expect(sources(cold.body)).toEqual(['upstream', 'upstream']); // the organization, its exports
    const warm = await two.post(EXPORTS, key, { variables: { org: hedgehog } });
    expect(sources(warm.body)).toEqual(['cache', 'cache']);
    expect(warm.body.data).toEqual(cold.body.data);
    // One budget for both: the cold read's calls counted once, the hits nothing.
    expect(warm.body.extensions.upstreamBudget).toEqual([{ per: 'hour', limit: 1000, remaining: 998 }]);

    const watched = cold.body.data.organization.batchExports.nodes.find((node: { paused: boolean }) => !node.paused);
    const served = await serveOverHttp(two.gateway);
    const subscription = await subscribe(
      served.url,
      'subscription ($id: ID!) { batchExport(id: $id) { paused } }',
      { id: watched.id },
      key,
    );
    try {
      expect(await subscription.waitForEvents(1)).toEqual([{ data: { batchExport: { paused: false } } }]);
      const paused = await one.post(PAUSE, key, { variables: { id: watched.id } });
      expect(paused.body.data).toEqual({ pauseBatchExport: { __typename: 'PauseBatchExportPayload' } });
      // Read-your-writes through the other instance, and its subscriber pushed without a poll interval.
      const after = await two.post(EXPORTS, key, { variables: { org: hedgehog } });
      expect(sources(after.body)).toContain('upstream');
      expect(after.body.data.organization.batchExports.nodes.find((node: { id: string }) => node.id === watched.id).paused).toBe(true);
      expect(await subscription.waitForEvents(2, 5000)).toEqual([
        { data: { batchExport: { paused: false } } },
        { data: { batchExport: { paused: true } } },
      ]);
    } finally {
      await subscription.close();
      await served.close();
    }
  });

  it('replay an idempotent mutation and run a persisted query across instances', async () => {
    const options = { key: api.keys.demo, idempotencyKey: 'cluster-1', variables: domainInput(hedgehog, 'cluster.example') };
    const first = await postMutation(one.gateway, options);
    expect(first.body.data.createDomain.__typename).toBe('CreateDomainPayload');
    const retry = await postMutation(two.gateway, options);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(api.requests.filter((request) => request.method === 'POST' && request.path.endsWith('/domains/'))).toHaveLength(1);

    const query = '{ organizations(first: 1) { nodes { name } } }';
    const hash = createHash('sha256').update(query).digest('hex');
    const apq = (target: TestGateway, text?: string) =>
      target.gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${api.keys.demo}` },
        body: JSON.stringify({ query: text, extensions: { persistedQuery: { version: 1, sha256Hash: hash } } }),
      });
    expect((await apq(one, query)).status).toBe(200);
    const byHash = await apq(two);
    expect(byHash.status).toBe(200);
    expect(((await byHash.json()) as { data: unknown }).data).toEqual({ organizations: { nodes: [expect.any(Object)] } });
  });

  it('made no store operation fail on either instance', async () => {
    expect(await storeFailures(one)).toBe(0);
    expect(await storeFailures(two)).toBe(0);
  });
});
