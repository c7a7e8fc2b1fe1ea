// `npm start` as a newcomer runs it: no configuration, the embedded demo API, printed instructions
// that work as printed, and GraphiQL prefilled with the demo key only in that embedded mode.
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startReferenceApi } from '../../src/reference-api/index.ts';
import { startMain } from '../support/main-process.ts';
import { refusedUrl } from '../support/refused-url.ts';

const children: ChildProcess[] = [];

/** Servers a test started, closed after it. */
const onCleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
  for (const close of onCleanup.splice(0)) await close();
});

/** Starts src/main.ts the way `npm start` does and collects its output until it is ready (or exits). */
function start(env: Record<string, string>) {
  const main = startMain(env);
  children.push(main.child);
  return main;
}

async function post(url: string, query: string, key?: string) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as { data?: any; errors?: any[] };
}

describe('npm start', () => {
  it('with no configuration serves the demo data and prints the URL, the key header and a query that works', async () => {
    const { output, url } = await start({}).ready;
    const key = /Authorization: Bearer (\S+)/.exec(output)?.[1];
    expect(key).toMatch(/^phx_/);
    const query = output.slice(output.indexOf('query Dashboard'));
    expect(query).toContain('organizations(first: 2)');

    const result = await post(url, query, key);
    expect(result.errors).toBeUndefined();
    expect(result.data.organizations.nodes.length).toBe(2);
    expect(result.data.organizations.nodes[0].name).toBeTruthy();

    const health = await fetch(url.replace('/graphql', '/health'));
    expect(health.status).toBe(200);

    const graphiql = await (await fetch(url, { headers: { accept: 'text/html' } })).text();
    expect(graphiql).toContain('GraphiQL');
    expect(graphiql).toContain(key);
    expect(graphiql).toContain('query Dashboard');
  });

  it('with REFERENCE_API_PORT serves the demo API at that port, and prints its address', async () => {
    const port = new URL(await refusedUrl()).port; // free a moment ago
    const { output } = await start({ REFERENCE_API_PORT: port }).ready;
    expect(output).toContain(`the bundled reference API with demo data at http://127.0.0.1:${port} `);
    const key = /Authorization: Bearer (\S+)/.exec(output)?.[1];
    const response = await fetch(`http://127.0.0.1:${port}/api/organizations/`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { count: number }).count).toBeGreaterThan(0);
  });

  it('with a REFERENCE_API_PORT in use: a clear message and exit code 1', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    onCleanup.push(() => new Promise((resolve) => taken.close(() => resolve())));
    const { port } = taken.address() as AddressInfo;
    const failure = await start({ REFERENCE_API_PORT: String(port) }).ready.then(
      () => undefined,
      (error: { code: number; output: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.output).toMatch(
      new RegExp(`^Configuration error: cannot start the reference API on 127\\.0\\.0\\.1, REFERENCE_API_PORT ${port}: EADDRINUSE$`, 'm'),
    );
  });

  it('with UPSTREAM_URL uses that upstream and never puts a key into GraphiQL', async () => {
    const api = await startReferenceApi();
    try {
      const { output, url } = await start({ UPSTREAM_URL: api.url }).ready;
      expect(output).toContain(`Upstream: ${api.url}`);
      expect(output).not.toContain('Bearer');
      const result = await post(url, '{ organizations { totalCount } }', api.keys.demo);
      expect(result.data.organizations.totalCount).toBeGreaterThan(0);
      expect(api.requests.some((r) => r.path === '/api/organizations/')).toBe(true);
      const graphiql = await (await fetch(url, { headers: { accept: 'text/html' } })).text();
      expect(graphiql).not.toContain(api.keys.demo);
      expect(graphiql).not.toContain('Authorization');
      // The start-up probe: one keyless GET of the upstream, which answered, so no warning.
      const probes = api.requests.filter((r) => r.headers['user-agent']?.includes('start-up probe'));
      expect(probes).toMatchObject([{ method: 'GET', path: '/api/organizations/' }]);
      expect(probes[0]?.headers.authorization).toBeUndefined();
      expect(output).not.toContain('cannot be reached');
    } finally {
      await api.close();
    }
  });

  it.each([
    [
      'nothing listens at its port',
      async () => refusedUrl(),
      /cannot be reached: the connection was refused: nothing listens there \(ECONNREFUSED\)/,
    ],
    [
      'its TLS handshake fails (https to a plain HTTP server)',
      async () => {
        const api = await startReferenceApi();
        onCleanup.push(() => api.close());
        return api.url.replace('http:', 'https:');
      },
      /cannot be reached: the TLS handshake failed \(E[A-Z_]+\)/,
    ],
  ])('with an UPSTREAM_URL where %s: warns at start, and serves anyway', async (_case, upstreamUrl, warning) => {
    const upstream = await upstreamUrl();
    const main = start({ UPSTREAM_URL: upstream, LOG_FILE: '' });
    const { url } = await main.ready;
    await expect.poll(main.output, { timeout: 10_000 }).toMatch(warning);
    const line = JSON.parse(
      main
        .output()
        .split('\n')
        .find((text) => text.includes('cannot be reached')) as string,
    );
    expect(line).toMatchObject({ level: 'warn', upstream: new URL(upstream).origin });
    expect((await fetch(url.replace('/graphql', '/health'))).status).toBe(200);
    const readiness = await (await fetch(url.replace('/graphql', '/readiness'))).json();
    expect(readiness).toMatchObject({ status: 'ready', upstream: { reachable: false } });
    const result = await post(url, '{ organizations { totalCount } }', 'phx_any');
    expect(result.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
  });

  it('serves with its server bounds: a client that never finishes its headers is cut at SERVER_HEADERS_TIMEOUT_MS', async () => {
    const { url } = await start({ SERVER_HEADERS_TIMEOUT_MS: '300', SERVER_REQUEST_TIMEOUT_MS: '300' }).ready;
    const { port, hostname } = new URL(url);
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    await new Promise((resolve) => socket.once('connect', resolve));
    const startedAt = performance.now();
    socket.write('GET /graphql HTTP/1.1\r\nHost: gateway.test\r\n'); // and no blank line
    await new Promise((resolve) => socket.once('close', resolve));
    expect(performance.now() - startedAt).toBeLessThan(2000);
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
  });

  it.each([
    [{ SERVER_HEADERS_TIMEOUT_MS: '60000' }, /SERVER_HEADERS_TIMEOUT_MS \(60000\) must not be longer than SERVER_REQUEST_TIMEOUT_MS/],
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ UPSTREAM_URL: 'ftp://example.com' }, /UPSTREAM_URL must be an http\(s\) URL: its scheme, ftp:, is not supported/],
    [{ UPSTREAM_URL: 'http://127.0.0.1:9/api' }, /without `\/api`/],
    [{ UPSTREAM_TIMEOUT_MS: '0' }, /UPSTREAM_TIMEOUT_MS must be a whole number from 1/],
    // Not an address of this machine: the server's own error, told in one line.
    [{ HOST: '192.0.2.1' }, /cannot listen on HOST 192\.0\.2\.1, PORT 0: EADDRNOTAVAIL/],
    [{ LOG_FILE: '/dev/null/gateway.log' }, /LOG_FILE \(\/dev\/null\/gateway\.log\) cannot be opened for appending: E[A-Z]+$/m],
  ])('refuses bad configuration %j with a clear message and exit code 1', async (env, message) => {
    const failure = await start(env).ready.then(
      () => undefined,
      (error: { code: number; output: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.output).toMatch(message);
    expect(failure?.output).toMatch(/^Configuration error: /m);
  });
});
