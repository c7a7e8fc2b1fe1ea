// Idempotent mutations across two gateway instances on one Redis (a redis-server of this spec's
// own) and the reference API with a scripted answer, over HTTP: a retry on either instance replays, a duplicate
// on the other instance while the first runs gets 409, another payload gets 422, a disconnect on one
// instance is answered by a retry on the other, nothing in Redis holds a key, Redis down refuses
// idempotent writes with 503 and serves everything else, a caller's keys are bounded across
// instances, a claim Redis applies after the gateway gave up on it is undone, and, interleaving
// duplicates, retries and disconnects at random, no idempotency key ever makes more than one upstream write.
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Gateway } from '../../src/gateway.ts';
import { type RecordedRequest, type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { forbiddenForms, type TestGateway, testGateway, untilStoreReachable } from '../cache/support.ts';
import { type ServedGateway, serveOverHttp } from '../support/http-server.ts';
import { type RedisServer, startRedisServer } from '../support/redis-server.ts';
import { sendJson } from '../support/scripted-answers.ts';
import { domainInput, ORGANIZATIONS, post, retryUntilSettled } from './support.ts';

const ORG = '0190d1f2-0000-7000-8000-00000000beef';
const KEY = 'phx_idempotency_redis_key';
const OTHER_KEY = 'phx_idempotency_other_key';

let upstream: ReferenceApi;
let redis: RedisServer;
let instances: TestGateway[];
let urls: string[];
let served: ServedGateway[];
/** How long the scripted upstream takes to answer a write. */
let writeMs = 0;
/** While set, writes are answered only once it resolves. */
let held: Promise<void> | undefined;
let created = 0;

beforeAll(async () => {
  [upstream, redis] = await Promise.all([startReferenceApi(), startRedisServer()]);
  upstream.answerWith(answer);
  // A generous store timeout: on a loaded test machine a 100 ms one sets Redis aside (503s), which
  // the outage test below covers on purpose.
  const options = { upstreamUrl: upstream.url, cache: { store: redis.url, ttlMs: 60_000, timeoutMs: 2000 } };
  instances = [testGateway(options), testGateway(options)];
  await Promise.all(instances.map((instance) => untilStoreReachable(instance)));
  served = await Promise.all(instances.map((instance) => serveOverHttp(instance.gateway)));
  urls = served.map((server) => server.url);
});

afterAll(async () => {
  for (const server of served ?? []) await server.close();
  for (const instance of instances ?? []) await instance.gateway.close();
  await redis?.close();
  await upstream?.close();
});

async function answer(req: RecordedRequest, res: ServerResponse): Promise<void> {
  if (req.method === 'GET') return sendJson(res, 200, { count: 0, next: null, previous: null, results: [] });
  await held;
  await sleep(writeMs);
  created += 1;
  sendJson(res, 201, {
    id: `0190d1f2-0000-7000-8000-${String(created).padStart(12, '0')}`,
    domain: (req.body as { domain: string }).domain,
  });
}

const writesOf = (domain: string) =>
  upstream.requests.filter((request) => request.method === 'POST' && (request.body as { domain: string }).domain === domain);
const variables = (domain: string) => domainInput(ORG, domain);

describe('two instances on one Redis', () => {
  it('a retry on the other instance replays the first response byte for byte, with no upstream call', async () => {
    const first = await post(urls[0] as string, { key: KEY, idempotencyKey: 'across-1', variables: variables('across.example') });
    expect(first.body.data.createDomain.__typename).toBe('CreateDomainPayload');
    const retry = await post(urls[1] as string, { key: KEY, idempotencyKey: 'across-1', variables: variables('across.example') });
    expect(retry.text).toBe(first.text);
    expect(retry.status).toBe(first.status);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(writesOf('across.example')).toHaveLength(1);
  });

  it('a concurrent duplicate gets 409 on the same and on the other instance; another payload gets 422; no upstream call', async () => {
    let release!: () => void;
    held = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      const first = post(urls[0] as string, { key: KEY, idempotencyKey: 'busy-1', variables: variables('busy.example') });
      await expect.poll(() => writesOf('busy.example').length).toBe(1);
      for (const url of urls) {
        const duplicate = await post(url, { key: KEY, idempotencyKey: 'busy-1', variables: variables('busy.example') });
        expect(duplicate.status).toBe(409);
        expect(duplicate.headers.get('retry-after')).toBe('1');
        expect(duplicate.body.errors?.[0]?.extensions).toEqual({ code: 'IDEMPOTENCY_CONFLICT' });
        const reused = await post(url, { key: KEY, idempotencyKey: 'busy-1', variables: variables('elsewhere.example') });
        expect(reused.status).toBe(422);
        expect(reused.body.errors?.[0]?.extensions).toEqual({ code: 'IDEMPOTENCY_KEY_REUSED' });
      }
      release();
      expect((await first).body.data.createDomain.__typename).toBe('CreateDomainPayload');
    } finally {
      release();
      held = undefined;
    }
    expect(writesOf('busy.example')).toHaveLength(1);
    expect(writesOf('elsewhere.example')).toHaveLength(0);
  });

  it('a caller who disconnects mid-write on one instance gets the real outcome from the other; the upstream saw one write', async () => {
    writeMs = 300;
    try {
      const caller = new AbortController();
      const first = post(urls[0] as string, {
        key: KEY,
        idempotencyKey: 'gone-1',
        variables: variables('gone.example'),
        signal: caller.signal,
      });
      await expect.poll(() => writesOf('gone.example').length).toBe(1);
      caller.abort();
      await expect(first).rejects.toThrow();
      const retry = await retryUntilSettled(urls[1] as string, {
        key: KEY,
        idempotencyKey: 'gone-1',
        variables: variables('gone.example'),
      });
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body.data.createDomain).toEqual({
        __typename: 'CreateDomainPayload',
        domain: { id: expect.any(String), domain: 'gone.example' },
      });
    } finally {
      writeMs = 0;
    }
    expect(writesOf('gone.example')).toHaveLength(1);
  });

  it('another caller’s same Idempotency-Key never sees the entry', async () => {
    const mine = await post(urls[0] as string, { key: KEY, idempotencyKey: 'shared-1', variables: variables('mine.example') });
    const theirs = await post(urls[1] as string, { key: OTHER_KEY, idempotencyKey: 'shared-1', variables: variables('theirs.example') });
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.createDomain.domain.domain).toBe('theirs.example');
    expect(mine.body.data.createDomain.domain.domain).toBe('mine.example');
    expect(writesOf('theirs.example').map((request) => request.headers.authorization)).toEqual([`Bearer ${OTHER_KEY}`]);
  });

  it('no idempotency key makes more than one upstream write, whatever the duplicates, retries and disconnects (property)', async () => {
    let run = 0;
    onTestFinished(() => {
      writeMs = 0;
    });
    const send = fc.record({
      instance: fc.integer({ min: 0, max: 1 }),
      startAfterMs: fc.integer({ min: 0, max: 40 }),
      disconnectAfterMs: fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(send, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 0, max: 60 }),
        async (keys, delay) => {
          run += 1;
          writeMs = delay;
          const results = await Promise.all(
            keys.flatMap((sends, k) =>
              sends.map(async ({ instance, startAfterMs, disconnectAfterMs }) => {
                await sleep(startAfterMs);
                const signal = disconnectAfterMs === undefined ? undefined : AbortSignal.timeout(disconnectAfterMs);
                const domain = `p${run}-${k}.example`;
                return post(urls[instance] as string, {
                  key: KEY,
                  idempotencyKey: `prop-${run}-${k}`,
                  variables: variables(domain),
                  signal,
                }).catch(
                  () => undefined, // disconnected
                );
              }),
            ),
          );
          for (const result of results) {
            if (result === undefined) continue;
            if (result.status === 409) expect(result.body.errors?.[0]?.extensions).toEqual({ code: 'IDEMPOTENCY_CONFLICT' });
            else expect(result.body.data.createDomain.__typename).toBe('CreateDomainPayload');
          }
          for (const k of keys.keys()) {
            const domain = `p${run}-${k}.example`;
            const settled = await retryUntilSettled(urls[k % 2] as string, {
              key: KEY,
              idempotencyKey: `prop-${run}-${k}`,
              variables: variables(domain),
            });
            expect(writesOf(domain)).toHaveLength(1);
            expect(settled.body.data.createDomain.domain.domain).toBe(domain);
            // Every answer for this key that was not a 409 is the same response.
            const answers = results.filter((result) => result?.status === 200 && result.body.data.createDomain.domain.domain === domain);
            for (const answered of answers) expect(answered?.body.data).toEqual(settled.body.data);
          }
        },
      ),
      { numRuns: 12 },
    );
  });

  it('keeps neither a key nor a plain digest of one in Redis, keys or values', async () => {
    const client = redis.client();
    const names = await client.keys('gw:*');
    expect(names.filter((name) => /^gw:\{[\w-]{22}\}:idem:[\w-]{43}$/.test(name))).not.toEqual([]);
    const values = await Promise.all(
      names.map(async (name) =>
        (await client.type(name)) === 'zset' ? (await client.zrange(name, '0', '-1')).join(' ') : client.get(name),
      ),
    );
    const stored = [...names, ...values.map(String)].join('\n');
    for (const key of [KEY, OTHER_KEY]) for (const form of forbiddenForms(key)) expect(stored).not.toContain(form);
  });

  it('IDEMPOTENCY_MAX_ENTRIES_PER_CALLER counts a caller’s keys across instances: past it that caller alone is refused, until they expire', async () => {
    const options = {
      upstreamUrl: upstream.url,
      cache: { store: redis.url, timeoutMs: 2000 },
      idempotency: { maxEntriesPerCaller: 2, ttlMs: 1000 },
    };
    const pair = [testGateway(options), testGateway(options)];
    onTestFinished(() => Promise.all(pair.map((instance) => instance.gateway.close())).then(() => undefined));
    await Promise.all(pair.map((instance) => untilStoreReachable(instance)));
    const [one, two] = pair.map((instance) => instance.gateway) as [Gateway, Gateway];
    const [caller, other] = ['phx_idempotency_bounded_key', 'phx_idempotency_bounded_other'];
    const send = (target: Gateway, key: string, n: number) =>
      post(target, { key, idempotencyKey: `bound-${n}`, variables: variables(`bound-${key}-${n}.example`) });
    expect((await send(one, caller, 1)).status).toBe(200);
    expect((await send(two, caller, 2)).status).toBe(200);
    const full = await send(one, caller, 3);
    expect(full.status).toBe(429);
    expect(full.body.errors?.[0]?.extensions).toEqual({ code: 'IDEMPOTENCY_UNAVAILABLE', reason: 'CALLER_LIMIT' });
    expect((await send(two, caller, 1)).headers.get('idempotent-replayed')).toBe('true');
    expect((await send(two, other, 3)).body.data.createDomain.__typename).toBe('CreateDomainPayload');
    expect(writesOf(`bound-${caller}-3.example`)).toHaveLength(0);
    await sleep(1100); // past IDEMPOTENCY_TTL_MS: the caller's records are gone, and so is their count
    expect((await send(two, caller, 3)).body.data.createDomain.__typename).toBe('CreateDomainPayload');
    expect(writesOf(`bound-${caller}-3.example`)).toHaveLength(1);
  });

  it('a claim Redis applies after the gateway gave up on it (503, nothing sent) is undone once Redis is back: the retry runs', async () => {
    const slow = testGateway({ upstreamUrl: upstream.url, cache: { store: redis.url, timeoutMs: 100 } });
    onTestFinished(() => slow.gateway.close());
    await untilStoreReachable(slow);
    const options = { key: KEY, idempotencyKey: 'late-claim-1', variables: variables('late-claim.example') };
    redis.freeze(); // the claim waits in Redis's socket until the thaw, long after the gateway's timeout
    let refused: Awaited<ReturnType<typeof post>>;
    try {
      refused = await post(slow.gateway, options);
    } finally {
      redis.thaw();
    }
    expect(refused.status).toBe(503);
    expect(refused.body.errors?.[0]?.extensions).toEqual({ code: 'IDEMPOTENCY_UNAVAILABLE' });
    await untilStoreReachable(slow);
    const retry = await post(slow.gateway, options);
    expect(retry.body.data.createDomain.__typename).toBe('CreateDomainPayload');
    expect(writesOf('late-claim.example')).toHaveLength(1);
  });

  it('Redis down: an idempotent mutation is refused with 503 and Retry-After before any call; everything else is served', async () => {
    await redis.stop();
    try {
      await Promise.all(instances.map((instance) => untilStoreReachable(instance, false)));
      for (const [i, url] of urls.entries()) {
        const refused = await post(url, { key: KEY, idempotencyKey: 'down-1', variables: variables('down.example') });
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(refused.body.errors?.[0]?.extensions).toEqual({ code: 'IDEMPOTENCY_UNAVAILABLE' });
        const plain = await post(url, { key: KEY, variables: variables(`plain-${i}.example`) });
        expect(plain.body.data.createDomain.__typename).toBe('CreateDomainPayload');
        const query = await post(url, { key: KEY, idempotencyKey: 'down-1', query: ORGANIZATIONS });
        expect(query.body).toEqual({ data: { organizations: { totalCount: 0 } } });
      }
      expect(writesOf('down.example')).toHaveLength(0);
    } finally {
      await redis.start();
    }
    await Promise.all(instances.map((instance) => untilStoreReachable(instance)));
    const after = await post(urls[1] as string, { key: KEY, idempotencyKey: 'down-1', variables: variables('down.example') });
    expect(after.body.data.createDomain.__typename).toBe('CreateDomainPayload');
    expect(writesOf('down.example')).toHaveLength(1);
  });
});
