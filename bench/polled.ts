// Issue 14's workload, the polled dashboard: 20 clients over 4 keys each poll the dashboard once a
// second for 60 s, alternating between two gateway instances, while one client per key pauses or
// unpauses an export of the dashboard every 5 s through them. Every key sees the same data (the
// upstream's), so a write by one key changes what the others read. Measured for each cache mode (off,
// memory, redis): upstream calls per minute, and stale reads after a gateway write (a read that
// started after a write's answer arrived but shows the value from before it). Then: dashboards/s the
// gateway serves from its cache, against the floor making the dashboard's 21 REST calls.
// Run by `npm run bench` after its dashboard part; `npm run bench -- --only polled` runs it alone.
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { startRedisServer } from '../test/support/redis-server.ts';
import { drive } from './lib/drive.ts';
import { environment, loadAverage } from './lib/environment.ts';
import { type Child, REPO_ROOT, startFloorProcess, startGateway, startScript } from './lib/processes.ts';
import { DASHBOARD, graphqlBody, PAUSE_BATCH_EXPORT, UNPAUSE_BATCH_EXPORT } from './lib/queries.ts';
import { fileStamp, fixed, markdownTable, median, table } from './lib/stats.ts';
import { upstreamControl } from './lib/upstream-control.ts';

export interface PolledSettings {
  quick: boolean;
  /** How long each mode is polled. @default 60 */
  durationSec: number;
  /** @default 20 */
  clients: number;
  /** @default 4: one writer per key */
  keys: number;
  /** @default 1000 */
  pollMs: number;
  /** @default 5000 */
  writeMs: number;
  /** How long each side of the cache-hit comparison is driven. @default 10 */
  hitSec: number;
  /** @default 10 */
  hitConnections: number;
  /** Upstream delays of the cache-hit comparison. @default [0, 5, 50] */
  hitDelays: number[];
}

const TARGETS = { minCallReduction: 0.9, maxStaleReadsRedis: 0, minHitRatio: 3 };

interface Mode {
  name: string;
  instances: number;
  env: (redisUrl: string | undefined) => Record<string, string>;
}

const MODES: Mode[] = [
  { name: 'off', instances: 2, env: () => ({}) },
  { name: 'memory', instances: 2, env: () => ({ CACHE: 'memory' }) },
  { name: 'redis', instances: 2, env: (url) => ({ CACHE: url as string }) },
  { name: 'memory, one instance', instances: 1, env: () => ({ CACHE: 'memory' }) },
];

interface Read {
  startedAt: number;
  answeredAt: number;
  /** Each watched export's `paused` as the dashboard showed it. */
  paused: Map<string, boolean>;
}

/** What the clients read of a dashboard answer. */
interface DashboardJson {
  data: { organizations: { nodes: { batchExports: { nodes: { id: string; paused: boolean }[] } }[] } };
}

interface Write {
  exportId: string;
  paused: boolean;
  sentAt: number;
  answeredAt: number;
  ok: boolean;
}

export async function runPolled(settings: PolledSettings): Promise<string[]> {
  const failures: string[] = [];
  const stamp = fileStamp();
  const logFile = join(tmpdir(), `bench-polled-gateway-${stamp}.log`);
  const keys = Array.from({ length: settings.keys }, () => `bench-${randomUUID()}`);
  const upstream = await startScript(
    'bench/upstream.ts',
    keys.flatMap((key) => ['--key', key]),
  );
  const control = upstreamControl(upstream.url);
  console.log(
    `\npolled dashboard: ${settings.clients} clients over ${settings.keys} keys, a dashboard every ${settings.pollMs} ms each, ` +
      `a write per key every ${settings.writeMs} ms, ${settings.durationSec} s per mode${settings.quick ? ' (quick)' : ''}`,
  );

  const modes: ReturnType<typeof summarise>[] = [];
  let hits: Awaited<ReturnType<typeof hitsAgainstFloor>>;
  try {
    for (const mode of MODES) {
      const redis = mode.name === 'redis' ? await startRedisServer() : undefined;
      const gateways: Child[] = [];
      try {
        for (let i = 0; i < mode.instances; i += 1)
          gateways.push(await startGateway({ upstreamUrl: upstream.url, logFile, env: mode.env(redis?.url) }));
        process.stdout.write(`mode ${mode.name} (${mode.instances} instance${mode.instances > 1 ? 's' : ''})… `);
        modes.push(summarise(mode, settings, await pollMode(settings, keys, gateways, control)));
        console.log('done');
      } finally {
        for (const gateway of gateways) await gateway.stop();
        await redis?.close();
      }
    }
    hits = await hitsAgainstFloor(settings, keys[0] as string, upstream, control, logFile);
  } finally {
    await upstream.stop();
  }

  // Targets and checks.
  const off = modes.find((m) => m.mode === 'off');
  const targets = ['memory', 'redis'].map((name) => {
    const mode = modes.find((m) => m.mode === name);
    const reduction = mode && off ? 1 - mode.upstreamCallsPerMinute / off.upstreamCallsPerMinute : Number.NaN;
    return {
      target: `${name}: ≥ ${TARGETS.minCallReduction * 100}% fewer upstream calls than off`,
      measured: `${fixed(reduction * 100)}% fewer`,
      met: reduction >= TARGETS.minCallReduction,
    };
  });
  const redisMode = modes.find((m) => m.mode === 'redis');
  targets.push({
    target: 'redis: no stale read after a gateway write',
    measured: `${redisMode?.staleReads} of ${redisMode?.checkedReads}`,
    met: redisMode?.staleReads === 0,
  });
  for (const hit of hits) {
    targets.push({
      target: `cache hits ≥ ${TARGETS.minHitRatio}× the floor's dashboards/s (upstream delay ${hit.delayMs} ms)`,
      measured: `${fixed(hit.ratio, 2)}×`,
      met: hit.ratio >= TARGETS.minHitRatio,
    });
  }
  for (const mode of modes) {
    if (mode.failedReads + mode.failedWrites > 0)
      failures.push(`polled ${mode.mode}: ${mode.failedReads} dashboards and ${mode.failedWrites} writes failed`);
    if (mode.badAuth > 0) failures.push(`polled ${mode.mode}: ${mode.badAuth} upstream calls without a bench key`);
  }
  if (redisMode && redisMode.staleReads > 0) failures.push(`polled redis: ${redisMode.staleReads} stale reads after a gateway write`);
  for (const hit of hits) {
    if (hit.gatewayUpstreamCalls > 0)
      failures.push(`cache hits (delay ${hit.delayMs} ms): the gateway made ${hit.gatewayUpstreamCalls} upstream calls`);
    if (hit.incomplete > 0) failures.push(`cache hits (delay ${hit.delayMs} ms): ${hit.incomplete} answers were not a full dashboard`);
  }

  // Output.
  const headers = [
    'cache',
    'instances',
    'upstream calls/min',
    'of which writes',
    'vs off',
    'dashboards',
    'stale reads / checked',
    'p50 / p99 ms',
  ];
  const rows = modes.map((m) => [
    m.mode,
    String(m.instances),
    fixed(m.upstreamCallsPerMinute, 0),
    fixed(m.writesPerMinute, 0),
    off ? `${fixed((1 - m.upstreamCallsPerMinute / off.upstreamCallsPerMinute) * 100)}% fewer` : 'n/a',
    String(m.reads),
    `${m.staleReads} / ${m.checkedReads}`,
    `${fixed(m.p50)} / ${fixed(m.p99)}`,
  ]);
  const hitHeaders = [
    'upstream delay ms',
    'gateway (cache hits) dashboards/s',
    'floor dashboards/s',
    'ratio',
    'p50 ms gateway / floor',
    'gateway upstream calls',
  ];
  const hitRows = hits.map((h) => [
    String(h.delayMs),
    fixed(h.gatewayQps, 0),
    fixed(h.floorQps, 0),
    `${fixed(h.ratio, 2)}×`,
    `${fixed(h.gatewayP50)} / ${fixed(h.floorP50)}`,
    String(h.gatewayUpstreamCalls),
  ]);
  const legend =
    `${settings.clients} clients, ${settings.durationSec} s per mode; upstream calls/min: every call the upstream (the reference API) received, reads and writes; ` +
    'stale read: started after a write’s answer arrived, showing the value before it (reads overlapping the next write of that export are not judged); ' +
    `cache hits: ${settings.hitConnections} connections, ${settings.hitSec} s per side, CACHE=memory with a TTL of an hour, one key`;
  console.log(`\n${table(headers, rows)}\n\n${table(hitHeaders, hitRows)}\n(${legend})`);
  console.log(
    `\n${table(
      ['target', 'measured', 'met'],
      targets.map((t) => [t.target, t.measured, t.met ? 'yes' : 'NO']),
    )}`,
  );

  const env = environment();
  const markdown = [
    `**${new Date().toISOString().slice(0, 10)}**: node ${env.node}, ${env.cpus} cores, commit ${env.commit}${env.dirtySrc.length ? ' + uncommitted src changes' : ''}; ` +
      `load average ${env.loadAverageAtStart.join(' ')} at start, ${loadAverage().join(' ')} at end${settings.quick ? ' (quick)' : ''}.`,
    '',
    markdownTable(headers, rows),
    '',
    markdownTable(hitHeaders, hitRows),
    '',
    `${legend}.`,
    '',
    markdownTable(
      ['target', 'measured', 'met'],
      targets.map((t) => [t.target, t.measured, t.met ? 'yes' : '**no**']),
    ),
    '',
  ].join('\n');
  mkdirSync(resolve(REPO_ROOT, 'bench/results'), { recursive: true });
  const base = resolve(REPO_ROOT, `bench/results/polled-${stamp}${settings.quick ? '-quick' : ''}`);
  writeFileSync(
    `${base}.json`,
    `${JSON.stringify({ kind: 'polled', settings, environment: { ...env, loadAverageAtEnd: loadAverage() }, modes, hits, targets, failures }, null, 2)}\n`,
  );
  writeFileSync(`${base}.md`, markdown);
  console.log(`\nresults: ${relative(REPO_ROOT, `${base}.json`)}; table for bench/README.md: ${relative(REPO_ROOT, `${base}.md`)}`);
  if (failures.length === 0) rmSync(logFile, { force: true });
  else console.log(`gateway log: ${logFile}`);
  return failures;
}

/** One mode: every client polls and every writer writes for `durationSec`; the upstream counts the calls. */
async function pollMode(settings: PolledSettings, keys: string[], gateways: Child[], control: ReturnType<typeof upstreamControl>) {
  // The exports the writers flip (one per key, each in its own organization), as the dashboard shows them now.
  const first = await dashboard(gateways[0] as Child, keys[0] as string);
  if (!first.ok) throw new Error(`the dashboard failed before the run: ${first.text.slice(0, 300)}`);
  const watched = new Map<string, boolean>();
  const orgs = (first.json as DashboardJson).data.organizations.nodes;
  for (const org of orgs.slice(0, keys.length)) {
    const target = org.batchExports.nodes[0];
    if (target) watched.set(target.id, target.paused);
  }
  const reads: Read[] = [];
  const writes: Write[] = [];
  let failedReads = 0;
  await control.reset();
  const startedAt = performance.now();
  const until = startedAt + settings.durationSec * 1000;

  const poller = async (client: number) => {
    const key = keys[client % keys.length] as string;
    let n = 0;
    for (let at = startedAt + (client * settings.pollMs) / settings.clients; at < until; at += settings.pollMs, n += 1) {
      await sleepUntil(at);
      const sent = performance.now();
      const answer = await dashboard(gateways[(client + n) % gateways.length] as Child, key);
      if (!answer.ok) {
        failedReads += 1;
        continue;
      }
      const paused = new Map<string, boolean>();
      for (const org of (answer.json as DashboardJson).data.organizations.nodes)
        for (const record of org.batchExports.nodes) if (watched.has(record.id)) paused.set(record.id, record.paused);
      reads.push({ startedAt: sent, answeredAt: performance.now(), paused });
    }
  };
  const writer = async (k: number) => {
    const exportId = [...watched.keys()][k] as string;
    let n = 0;
    for (let at = startedAt + settings.writeMs / 2 + (k * settings.writeMs) / keys.length; at < until; at += settings.writeMs, n += 1) {
      await sleepUntil(at);
      const paused = !watched.get(exportId);
      const sentAt = performance.now();
      const answer = await post(gateways[(k + n) % gateways.length] as Child, keys[k] as string, {
        query: paused ? PAUSE_BATCH_EXPORT : UNPAUSE_BATCH_EXPORT,
        variables: { id: exportId },
      });
      const ok = answer.ok && JSON.stringify(answer.json).includes(`"paused":${paused}`);
      if (ok) watched.set(exportId, paused);
      writes.push({ exportId, paused, sentAt, answeredAt: performance.now(), ok });
    }
  };
  await Promise.all([
    ...Array.from({ length: settings.clients }, (_, i) => poller(i)),
    ...Array.from({ length: keys.length }, (_, k) => writer(k)),
  ]);
  const elapsedSec = (performance.now() - startedAt) / 1000;
  const stats = await control.stats();
  return { reads, writes, failedReads, elapsedSec, stats, stale: staleReads(reads, writes) };
}

/**
 * Reads that started after a write's answer arrived and show an older value. A read is judged against
 * the last write of each export answered before it started, unless the next write of that export
 * was sent before the read's answer arrived (then either value is right).
 */
function staleReads(reads: Read[], writes: Write[]): { stale: number; checked: number } {
  let stale = 0;
  let checked = 0;
  for (const read of reads) {
    let judged = false;
    let isStale = false;
    for (const [exportId, shown] of read.paused) {
      const history = writes.filter((w) => w.exportId === exportId); // in the order they were sent
      const last = history.findLastIndex((w) => w.answeredAt < read.startedAt);
      const before = history[last];
      const next = history[last + 1];
      if (!before?.ok || (next && next.sentAt < read.answeredAt)) continue;
      judged = true;
      if (shown !== before.paused) isStale = true;
    }
    if (judged) checked += 1;
    if (isStale) stale += 1;
  }
  return { stale, checked };
}

function summarise(mode: Mode, settings: PolledSettings, run: Awaited<ReturnType<typeof pollMode>>) {
  const latencies = run.reads.map((r) => r.answeredAt - r.startedAt).sort((a, b) => a - b);
  return {
    mode: mode.name,
    instances: mode.instances,
    durationSec: run.elapsedSec,
    upstreamCallsPerMinute: (run.stats.calls / run.elapsedSec) * 60,
    writesPerMinute: (run.stats.writes / run.elapsedSec) * 60,
    upstreamCalls: run.stats.calls,
    reads: run.reads.length,
    failedReads: run.failedReads,
    writes: run.writes.length,
    failedWrites: run.writes.filter((w) => !w.ok).length,
    staleReads: run.stale.stale,
    checkedReads: run.stale.checked,
    badAuth: run.stats.badAuth,
    p50: median(latencies),
    p99: latencies[Math.max(0, Math.ceil(latencies.length * 0.99) - 1)] ?? Number.NaN,
    expectedDashboards: (settings.clients * settings.durationSec * 1000) / settings.pollMs,
  };
}

/** Dashboards/s of cache hits (one key, an hour's TTL, nothing written) against the floor, per upstream delay. */
async function hitsAgainstFloor(
  settings: PolledSettings,
  key: string,
  upstream: Child,
  control: ReturnType<typeof upstreamControl>,
  logFile: string,
) {
  const gateway = await startGateway({ upstreamUrl: upstream.url, logFile, env: { CACHE: 'memory', CACHE_TTL_MS: '3600000' } });
  const floor = await startFloorProcess(upstream.url);
  try {
    return await compareHits(settings, key, gateway, floor, control);
  } finally {
    await control.configure({ delayMs: 0 });
    await gateway.stop();
    await floor.stop();
  }
}

async function compareHits(
  settings: PolledSettings,
  key: string,
  gateway: Child,
  floor: Child,
  control: ReturnType<typeof upstreamControl>,
) {
  const body = graphqlBody(DASHBOARD);
  const results = [];
  for (const delayMs of settings.hitDelays) {
    await control.configure({ delayMs });
    process.stdout.write(`cache hits against the floor, upstream delay ${delayMs} ms… `);
    // Warm-up: fills the cache, and JIT-compiles both sides. Then a pause, so the floor's dashboards
    // cut off when its warm-up ended finish their calls before the count starts.
    for (const side of [floor, gateway])
      await drive({ url: side.url, connections: settings.hitConnections, durationSec: Math.min(2, settings.hitSec), key, body });
    await new Promise((resolve) => setTimeout(resolve, 500 + 10 * delayMs));
    await control.reset();
    const onGateway = await drive({
      url: gateway.url,
      connections: settings.hitConnections,
      durationSec: settings.hitSec,
      key,
      body,
      checkBodies: true,
    });
    const gatewayUpstreamCalls = (await control.stats()).calls;
    const onFloor = await drive({
      url: floor.url,
      connections: settings.hitConnections,
      durationSec: settings.hitSec,
      key,
      body,
      checkBodies: true,
    });
    console.log('done');
    results.push({
      delayMs,
      gatewayQps: onGateway.requestsPerSec,
      floorQps: onFloor.requestsPerSec,
      ratio: onGateway.requestsPerSec / onFloor.requestsPerSec,
      gatewayUpstreamCalls,
      incomplete: onGateway.bodyless + onGateway.withErrors + onFloor.bodyless + onFloor.withErrors,
      gatewayP50: onGateway.latencyMs.p50,
      floorP50: onFloor.latencyMs.p50,
    });
  }
  return results;
}

async function dashboard(gateway: Child, key: string) {
  return post(gateway, key, { query: DASHBOARD });
}

async function post(gateway: Child, key: string, body: unknown): Promise<{ ok: boolean; json: unknown; text: string }> {
  try {
    const response = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const json = JSON.parse(text) as { data?: unknown; errors?: unknown };
    return { ok: response.ok && json.errors === undefined, json, text };
  } catch (error) {
    return { ok: false, json: undefined, text: String(error) };
  }
}

function sleepUntil(at: number): Promise<void> {
  const wait = at - performance.now();
  return wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : Promise.resolve();
}
