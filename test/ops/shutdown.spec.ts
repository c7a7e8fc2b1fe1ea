// SIGTERM: `src/main.ts` stops accepting connections, finishes the requests in flight, releases the
// upstream pool, exports the spans still queued (and closes the embedded API) and exits 0; requests still running after SHUTDOWN_GRACE_MS
// do not hold it up (exit 1). The processes log to the suite's LOG_FILE, checked for keys at the end.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { startReferenceApi } from '../../src/reference-api/index.ts';
import { startMain } from '../support/main-process.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';
import { sendJson } from '../support/scripted-answers.ts';

const KEY = 'phx_shutdown_test_key';
const scripted = await startReferenceApi();
const children: ChildProcess[] = [];
const page = (results: unknown[]) => ({ count: results.length, next: null, previous: null, results });

// The upstream answers after `delay` ms, named in the request's path prefix.
scripted.answerWith((req, res) => {
  const delay = Number(/^\/slow-(\d+)\//.exec(req.path)?.[1] ?? 0);
  setTimeout(
    () => sendJson(res, 200, page([{ id: '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0001', name: 'Acme', slug: 'acme', teams: [] }])),
    delay,
  );
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await scripted.close();
});

function start(env: Record<string, string>) {
  const main = startMain(env);
  children.push(main.child);
  return { ...main, ready: main.ready.then(({ url }) => url) };
}

function post(url: string) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ query: 'query Slow { organizations { nodes { name } } }' }),
  });
}

async function untilUpstreamReceived(prefix: string): Promise<void> {
  while (!scripted.requests.some((r) => r.path.startsWith(prefix))) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** The lines this process wrote to the suite's log file. */
function logLinesOf(pid: number | undefined): { msg: string; [field: string]: unknown }[] {
  const file = process.env.LOG_FILE;
  if (!file) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((line) => line.pid === pid);
}

// Each test starts a real process (tsx compiles src/ first): under a loaded CI that alone can take
// over 10 s, so the time limit is the process start's, not the shutdown's (which the asserts bound).
describe.concurrent('SIGTERM', { timeout: 60_000 }, () => {
  it('lets a request in flight finish with its data, then exits 0', async () => {
    const gateway = start({ UPSTREAM_URL: `${scripted.url}/slow-500`, SHUTDOWN_GRACE_MS: '10000' });
    const url = await gateway.ready;
    const response = post(url);
    await untilUpstreamReceived('/slow-500/');
    gateway.child.kill('SIGTERM');

    const answer = await response;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ data: { organizations: { nodes: [{ name: 'Acme' }] } } });
    expect(await gateway.exited).toBe(0);

    // No new connections once shutdown has begun.
    await expect(fetch(url.replace('/graphql', '/health'))).rejects.toThrow();
    if (process.env.LOG_FILE) {
      const messages = logLinesOf(gateway.child.pid).map((line) => line.msg);
      expect(messages).toEqual(
        expect.arrayContaining([
          'gateway listening',
          'shutting down: no new connections; finishing the requests in flight',
          'graphql request',
          'shut down cleanly',
        ]),
      );
      expect(messages.indexOf('graphql request')).toBeGreaterThan(
        messages.indexOf('shutting down: no new connections; finishing the requests in flight'),
      );
    }
  });

  it('exits 1 after SHUTDOWN_GRACE_MS when a request is still running', async () => {
    const gateway = start({ UPSTREAM_URL: `${scripted.url}/slow-5000`, SHUTDOWN_GRACE_MS: '300' });
    const url = await gateway.ready;
    const response = post(url).catch((error: unknown) => error);
    await untilUpstreamReceived('/slow-5000/');
    const signalledAt = performance.now();
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(1);
    expect(performance.now() - signalledAt).toBeLessThan(3000);
    expect(await response).toBeInstanceOf(Error); // the connection went down with the process
  });

  it('closes the embedded reference API too, and exits 0 when idle', async () => {
    const gateway = start({});
    await gateway.ready;
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
  });
});

// After the others, not beside them: each child process is a TypeScript start, heavy on a shared machine.
describe('SIGTERM with tracing on', () => {
  it('exports the spans still queued before it exits', async () => {
    const receiver = await startOtlpReceiver();
    // A batch delay far beyond the test: only the shutdown can have sent these spans.
    const gateway = start({ UPSTREAM_URL: scripted.url, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '600000' });
    expect((await post(await gateway.ready)).status).toBe(200);
    expect(receiver.exports).toEqual([]);
    gateway.child.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
    expect(receiver.spans().map((span) => span.name)).toEqual(['GET /api/organizations/', 'graphql.operation query Slow']);
    await receiver.close();
  });
});
