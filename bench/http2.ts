// Is HTTP/2 to the upstream worth it (issue 21)? The dashboard's 21 calls over TLS to a server
// answering in DELAY ms, through one undici Pool: HTTP/1.1 (one call per connection, 1024 of them)
// against HTTP/2 (allowH2, calls multiplexed on H2_CONNECTIONS connections), CLIENTS dashboards at
// once for SECONDS. Transport only: no gateway. Needs the openssl command for a throwaway certificate.
//   node --import tsx bench/http2.ts                       # DELAY=200 CLIENTS=50 SECONDS=10 H2_CONNECTIONS=16
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';

const delay = Number(process.env.DELAY ?? 200);
const clients = Number(process.env.CLIENTS ?? 50);
const seconds = Number(process.env.SECONDS ?? 10);
const body = JSON.stringify({
  count: 5,
  next: null,
  previous: null,
  results: Array.from({ length: 5 }, (_, i) => ({ id: `org-${i}`, name: `Org ${i}`, teams: [] })),
});
const dir = mkdtempSync(join(tmpdir(), 'bench-http2-'));
execFileSync(
  'openssl',
  [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
    '-days',
    '1',
    '-subj',
    '/CN=127.0.0.1',
  ],
  { stdio: 'ignore' },
);
const server = createSecureServer(
  {
    key: readFileSync(join(dir, 'key.pem')),
    cert: readFileSync(join(dir, 'cert.pem')),
    allowHTTP1: true,
    settings: { maxConcurrentStreams: 1000 },
  },
  (_req, res) => {
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    }, delay);
  },
);
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
for (const mode of ['h1', 'h2'] as const) {
  const pool = new Pool(origin, {
    connections: mode === 'h1' ? 1024 : Number(process.env.H2_CONNECTIONS ?? 16),
    allowH2: mode === 'h2',
    maxConcurrentStreams: 128,
    connect: { rejectUnauthorized: false },
  });
  const get = async (path: string) => {
    const r = await pool.request({ path, method: 'GET' });
    return JSON.parse(await r.body.text());
  };
  const dashboard = async () => {
    const orgs = await get('/api/organizations/');
    await Promise.all(
      orgs.results.flatMap((o: { id: string }) =>
        ['batch_exports', 'domains', 'members', 'pipeline_destinations'].map((l) => get(`/api/organizations/${o.id}/${l}/`)),
      ),
    );
  };
  await Promise.all(Array.from({ length: clients }, () => dashboard())); // warm-up: connections and handshakes
  const cpu = process.cpuUsage();
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        await dashboard();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      mode,
      delay,
      clients,
      dashboardsPerSec: +(latencies.length / seconds).toFixed(1),
      p50: +latencies[Math.floor(latencies.length / 2)]!.toFixed(0),
      p99: +latencies[Math.floor(latencies.length * 0.99)]!.toFixed(0),
      clientCpuMsPerDashboard: +((used.user + used.system) / 1000 / latencies.length).toFixed(2),
      rssMb: Math.round(process.memoryUsage().rss / 1e6),
    }),
  );
  await pool.close();
}
server.close();
process.exit(0);
