// Subscriptions (issue 15), in one process against the reference API, through `yoga.fetch`:
// 1. upstream calls per minute for 50 subscribers on 5 batch exports (one key), against 50 clients
//    polling the same selection with a query every poll interval (cache off, then CACHE=memory);
// 2. the memory of 1,000 open idle subscriptions (heap and RSS after a full GC, before and after).
// Run: npm run bench:subscriptions [-- --poll-ms 1000 --seconds 15]. Needs --expose-gc (the script sets it).
import { parseArgs } from 'node:util';
import { resolveConfig } from '../src/config/index.ts';
import { createGateway, type GatewayOptions } from '../src/gateway.ts';
import { createLogger } from '../src/observability/logger.ts';
import { startReferenceApi } from '../src/reference-api/index.ts';
import { helpIfAsked } from './lib/cli.ts';

helpIfAsked();

const { values } = parseArgs({ options: { 'poll-ms': { type: 'string', default: '1000' }, seconds: { type: 'string', default: '15' } } });
const POLL_MS = Number(values['poll-ms']);
const SECONDS = Number(values.seconds);
const CLIENTS = 50;
const EXPORTS = 5;
const IDLE_SUBSCRIPTIONS = 1000;
const SELECTION = '{ id name paused lastUpdatedAt latestRuns { status recordsCompleted } }';

const api = await startReferenceApi();
const logger = createLogger({ ...resolveConfig(), logLevel: 'silent' });
const key = api.keys.demo;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function exportIds(gateway: ReturnType<typeof createGateway>): Promise<string[]> {
  const response = await post(
    gateway,
    'application/json',
    `{ organizations(first: 1) { nodes { batchExports(first: ${EXPORTS}) { nodes { id } } } } }`,
  );
  const body = (await response.json()) as { data: { organizations: { nodes: { batchExports: { nodes: { id: string }[] } }[] } } };
  return body.data.organizations.nodes[0]?.batchExports.nodes.map((node) => node.id) ?? [];
}

function post(gateway: ReturnType<typeof createGateway>, accept: string, query: string, variables: Record<string, unknown> = {}) {
  return gateway.yoga.fetch('http://bench.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${key}` },
    body: JSON.stringify({ query, variables }),
  });
}

/** Opens a subscription and reads its stream in the background; returns how to close it. */
async function openSubscription(gateway: ReturnType<typeof createGateway>, id: string) {
  const response = await post(gateway, 'text/event-stream', `subscription ($id: ID!) { batchExport(id: $id) ${SELECTION} }`, { id });
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  void (async () => {
    while (!(await reader.read().catch(() => ({ done: true }))).done);
  })();
  return () => reader.cancel();
}

async function upstreamCallsPerMinute(mode: 'subscriptions' | 'polling', options: Partial<GatewayOptions>) {
  const gateway = createGateway({ upstreamUrl: api.url, logger, subscriptions: { pollMs: POLL_MS, maxPerKey: CLIENTS }, ...options });
  const ids = await exportIds(gateway);
  const closers: (() => Promise<void>)[] = [];
  let polling = true;
  const pollers: Promise<void>[] = [];
  api.clearRequests();
  const startedAt = performance.now();
  for (let client = 0; client < CLIENTS; client++) {
    const id = ids[client % ids.length] as string;
    if (mode === 'subscriptions') closers.push(await openSubscription(gateway, id));
    else {
      pollers.push(
        (async () => {
          while (polling) {
            await (
              await post(gateway, 'application/json', `query ($id: ID!) { node(id: $id) { ... on BatchExport ${SELECTION} } }`, { id })
            ).text();
            await sleep(POLL_MS);
          }
        })(),
      );
    }
  }
  await sleep(SECONDS * 1000);
  const calls = api.requests.length;
  const elapsedMinutes = (performance.now() - startedAt) / 60_000;
  polling = false;
  await Promise.all(closers.map((close) => close()));
  await Promise.all(pollers);
  await gateway.close();
  return Math.round(calls / elapsedMinutes);
}

async function idleMemory() {
  const gateway = createGateway({
    upstreamUrl: api.url,
    logger,
    // Idle: one poll per export at the start, none after.
    subscriptions: { pollMs: 3_600_000, maxPerKey: IDLE_SUBSCRIPTIONS, max: IDLE_SUBSCRIPTIONS },
  });
  const ids = await exportIds(gateway);
  const measure = async () => {
    await sleep(200);
    globalThis.gc?.();
    const { heapUsed, rss } = process.memoryUsage();
    return { heapMiB: heapUsed / 2 ** 20, rssMiB: rss / 2 ** 20 };
  };
  const before = await measure();
  const closers = [];
  for (let i = 0; i < IDLE_SUBSCRIPTIONS; i++) closers.push(await openSubscription(gateway, ids[i % ids.length] as string));
  const open = await measure();
  const stats = gateway.subscriptionStats();
  await Promise.all(closers.map((close) => close()));
  const closed = await measure();
  const afterClose = gateway.subscriptionStats();
  await gateway.close();
  return { before, open, closed, stats, afterClose };
}

const perMinute = (calls: number) => `${calls} (${Math.round((calls * POLL_MS) / 5000)} at SUBSCRIPTION_POLL_MS=5000)`;
console.log(`${CLIENTS} clients on ${EXPORTS} batch exports, one key, poll every ${POLL_MS} ms, ${SECONDS} s each:`);
console.log(`  subscriptions:                 upstream calls/min ${perMinute(await upstreamCallsPerMinute('subscriptions', {}))}`);
console.log(`  polling queries, cache off:    upstream calls/min ${perMinute(await upstreamCallsPerMinute('polling', {}))}`);
console.log(
  `  polling queries, CACHE=memory (TTL = poll): upstream calls/min ${perMinute(await upstreamCallsPerMinute('polling', { cache: { store: 'memory', ttlMs: POLL_MS } }))}`,
);
const memory = await idleMemory();
const fmt = (m: { heapMiB: number; rssMiB: number }) => `heap ${m.heapMiB.toFixed(1)} MiB, RSS ${m.rssMiB.toFixed(1)} MiB`;
console.log(`${IDLE_SUBSCRIPTIONS} idle subscriptions (${memory.stats.streams} streams, ${memory.stats.polls} polls):`);
console.log(`  before: ${fmt(memory.before)}\n  open:   ${fmt(memory.open)}`);
console.log(`  closed: ${fmt(memory.closed)} (${memory.afterClose.streams} streams, ${memory.afterClose.polls} polls left)`);
console.log(
  `  per open subscription: ${(((memory.open.heapMiB - memory.before.heapMiB) * 2 ** 20) / IDLE_SUBSCRIPTIONS / 1024).toFixed(1)} KiB of heap`,
);
await api.close();
