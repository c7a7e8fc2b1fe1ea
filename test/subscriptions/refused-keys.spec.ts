// Made-up keys hold nothing (issue 52, item 4): with UPSTREAM_BUDGET on, the calls the upstream
// answers 401 spend no budget, so a made-up key's poll still reaches the upstream and its 401 ends
// the stream; and a subscription holds a slot only once its first poll showed the key accepted.
// Over SSE, against the reference API.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { parseUpstreamBudget } from '../../src/config/upstream-budget.ts';
import { type HttpHarness, startHttpHarness } from '../support/http-server.ts';
import { type SseSubscription, subscribe } from '../support/sse.ts';

const WATCH = 'subscription ($id: ID!) { batchExport(id: $id) { paused } }';
const MADE_UP = ['phx_made_up_one', 'phx_made_up_two'];

let h: HttpHarness;
let exportId: string;
const open: SseSubscription[] = [];

beforeAll(async () => {
  h = await startHttpHarness(
    {},
    { subscriptions: { pollMs: 250, maxPerKey: 20, max: 2 }, upstreamBudget: parseUpstreamBudget('20/minute') },
  );
  const { data } = await h.run<{ organizations: { nodes: { batchExports: { nodes: { id: string }[] } }[] } }, unknown>(
    '{ organizations(first: 1) { nodes { batchExports(first: 1) { nodes { id } } } } }',
  );
  exportId = data.organizations.nodes[0]?.batchExports.nodes[0]?.id as string;
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((subscription) => subscription.close()));
  await expect.poll(() => h.gateway.subscriptionStats(), { timeout: 1000 }).toEqual({ streams: 0, polls: 0 });
});
afterAll(() => h.close());

async function watch(key: string) {
  const subscription = await subscribe(h.url, WATCH, { id: exportId }, key);
  open.push(subscription);
  return subscription;
}

it("spends no budget on calls the upstream answered 401: a made-up key's every query and poll reaches the upstream's 401", async () => {
  for (let i = 0; i < 25; i++) {
    const { errors } = await h.run('{ organizations(first: 1) { totalCount } }', undefined, { key: MADE_UP[0] as string });
    // Past the budget of 20 a minute, this would be RATE_LIMITED by the gateway itself.
    expect(errors?.map((e) => e.extensions?.code)).toEqual(['UNAUTHENTICATED']);
  }
});

it('gives a made-up key no slot: its first poll ends its stream with UNAUTHENTICATED, and real keys take every slot', async () => {
  h.api.clearRequests();
  const refused = await Promise.all([...MADE_UP, ...MADE_UP].map(watch));
  for (const subscription of refused) {
    await subscription.waitForComplete();
    expect(subscription.events.map((event) => event.errors?.map((e) => e.extensions?.code))).toEqual([['UNAUTHENTICATED']]);
  }
  // Each first poll reached the upstream (two keys: one shared poll each, or one per stream).
  expect(h.api.requests.length).toBeGreaterThanOrEqual(2);
  expect(h.gateway.subscriptionStats().streams).toBe(0);

  // MAX_SUBSCRIPTIONS is 2: both go to the real keys.
  const real = await Promise.all([h.api.keys.demo, h.api.keys.readOnly].map((key) => watch(key as string)));
  for (const subscription of real) {
    const [first] = await subscription.waitForEvents(1);
    expect(first?.errors).toBeUndefined();
    expect(first?.data).toEqual({ batchExport: { paused: expect.any(Boolean) } });
  }
  expect(h.gateway.subscriptionStats().streams).toBe(2);
});

it('counts a stream against the limits only once its key is accepted: a made-up key is refused as itself, not as over the limit', async () => {
  const real = await Promise.all([h.api.keys.demo, h.api.keys.readOnly].map((key) => watch(key as string)));
  await Promise.all(real.map((subscription) => subscription.waitForEvents(1)));
  // Full: a made-up key is refused before any poll, as any key is.
  const late = await watch(MADE_UP[1] as string);
  await late.waitForComplete();
  expect(late.events[0]?.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxSubscriptions' });
  expect(h.gateway.subscriptionStats().streams).toBe(2);
});
