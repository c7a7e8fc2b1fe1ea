// Any interleaving of reads and writes, through two instances on one Redis, by two keys that see the
// same organization, some of them at once: a read never shows a value older than the last write made
// through the gateway. A write made outside the gateway may be missed (until CACHE_TTL_MS): the model
// allows the values written outside since the last gateway write, and no older one.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { type RedisServer, startRedisServer } from '../support/redis-server.ts';
import { type TestGateway, testGateway, untilStoreReachable } from './support.ts';

const EXPORTS = `query Exports($org: UUID!) { organization(databaseId: $org) { batchExports(first: 3) { nodes { id paused } } } }`;
const SET_PAUSED = (paused: boolean) =>
  `mutation($id: ID!) { ${paused ? 'pause' : 'unpause'}BatchExport(input: { id: $id }) { __typename } }`;

type Step =
  | { kind: 'read'; via: 0 | 1; key: 'demo' | 'member' }
  | { kind: 'write'; via: 0 | 1; paused: boolean }
  | { kind: 'outside'; paused: boolean };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('read' as const),
    via: fc.constantFrom(0 as const, 1 as const),
    key: fc.constantFrom('demo' as const, 'member' as const),
  }),
  fc.record({ kind: fc.constant('write' as const), via: fc.constantFrom(0 as const, 1 as const), paused: fc.boolean() }),
  fc.record({ kind: fc.constant('outside' as const), paused: fc.boolean() }),
);

let api: ReferenceApi;
let redis: RedisServer;
let instances: [TestGateway, TestGateway];
let hedgehog: string;

beforeAll(async () => {
  [api, redis] = await Promise.all([startReferenceApi(), startRedisServer()]);
  const options = { upstreamUrl: api.url, cache: { store: redis.url, ttlMs: 60_000 } };
  instances = [testGateway(options), testGateway(options)];
  await Promise.all(instances.map((instance) => untilStoreReachable(instance)));
  hedgehog = api.store.organizationsOf(1).find((org) => org.name === 'Hedgehog Analytics')?.id as string;
});

afterAll(async () => {
  for (const instance of instances ?? []) await instance.gateway.close();
  await redis?.close();
  await api?.close();
});

describe('read-your-writes', () => {
  it('no read shows a value older than the last write made through the gateway, in any interleaving', async () => {
    const record = api.store.batchExportsOf(hedgehog)[0];
    if (!record) throw new Error('no batch export to write');
    const id = Buffer.from(`BatchExport:${hedgehog}:${record.id}`).toString('base64');
    const write = async (via: 0 | 1, paused: boolean) => {
      const response = await instances[via].post(SET_PAUSED(paused), api.keys.demo, { variables: { id } });
      expect(response.body.errors).toBeUndefined();
    };
    const read = async (via: 0 | 1, key: 'demo' | 'member') => {
      const response = await instances[via].post(EXPORTS, api.keys[key], { variables: { org: hedgehog } });
      return response.body.data.organization.batchExports.nodes.find((node: { id: string }) => node.id === id).paused as boolean;
    };

    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(fc.array(step, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 }),
        async (initial, groups) => {
          // Every run starts from a write through the gateway, whatever the last run left in the cache.
          await write(0, initial);
          /** The values a read may show: the last gateway write's, and those written outside since. */
          let allowed = new Set([initial]);
          for (const group of groups) {
            // Reads of a group may see the writes of their own group, or not.
            const mayShow = new Set([...allowed, ...group.flatMap((s) => (s.kind === 'read' ? [] : [s.paused]))]);
            const shown = await Promise.all(
              group.map(async (s) => {
                if (s.kind === 'read') return read(s.via, s.key);
                if (s.kind === 'write') await write(s.via, s.paused);
                else record.paused = s.paused;
                return undefined;
              }),
            );
            for (const value of shown) if (value !== undefined) expect(mayShow.has(value)).toBe(true);
            // After the group: the last write through the gateway wins, unless one made outside came
            // after it in the group (they ran at once: either order).
            const writes = group.filter((s) => s.kind !== 'read');
            if (writes.some((s) => s.kind === 'write')) allowed = new Set(writes.map((s) => s.paused));
            else for (const s of writes) allowed.add(s.paused);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
