// Whatever fails on any route, the caller gets "Unexpected error." with the request id and nothing
// of the failure (no stack, no file path, no upstream URL), and the log gets the error with its
// stack at `error`. Each failure is a real one, through a seam the tests own: GraphiQL's files read
// from a directory that has none, a metric whose collection throws, a plugin that fails on the way
// in or out, a request body whose stream breaks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'graphql-yoga';
import { Gauge } from 'prom-client';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { startReferenceApi } from '../../src/reference-api/index.ts';
import { type ServedGateway, serveOverHttp } from '../support/http-server.ts';
import { captureLogger } from './support.ts';

const api = await startReferenceApi();
const emptyDir = mkdtempSync(join(tmpdir(), 'graphiql-files-'));
afterAll(async () => {
  await api.close();
  rmSync(emptyDir, { recursive: true, force: true });
});

/** Every failure below names a server path and the upstream URL, which must stay in the log. */
const secretPath = '/srv/gateway/internal/secret.js';
const failure = () => new Error(`failed at ${secretPath} talking to ${api.url}`);

/** A plugin that fails on `path`: while the request comes in, or while its answer goes out. */
function failingOn(path: string, when: 'onRequest' | 'onResponse'): Plugin {
  return {
    [when]: ({ url, request }: { url?: URL; request: Request }) => {
      if ((url ?? new URL(request.url)).pathname === path) throw failure();
    },
  };
}

let served: ServedGateway | undefined;
let gateway: Gateway | undefined;
afterEach(async () => {
  await served?.close();
  await gateway?.close();
  served = undefined;
  gateway = undefined;
});

async function serve(options: Parameters<typeof createGateway>[0] extends infer O ? Partial<O> : never) {
  const capture = captureLogger();
  gateway = createGateway({ upstreamUrl: api.url, logger: capture.logger, ...options });
  served = await serveOverHttp(gateway);
  const origin = new URL(served.url).origin;
  return { capture, origin, gateway };
}

/** The answer holds "Unexpected error." and the request id, and none of the failure; the log line has it all. */
async function expectMasked(response: Response, capture: ReturnType<typeof captureLogger>, detail: RegExp) {
  const text = await response.text();
  expect(response.status).toBe(500);
  const requestId = response.headers.get('x-request-id');
  expect(requestId).toBeTruthy();
  expect(JSON.parse(text)).toEqual({
    errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId } }],
  });
  expect(text).not.toMatch(/\bat \S|\.(js|ts):\d+|\/srv\/|\/work\/|\/tmp\/|ENOENT|127\.0\.0\.1/);
  expect(text).not.toContain(api.url);
  const line = capture.lines.find((entry) => entry.level === 'error' && entry.requestId === requestId);
  expect(line?.err?.stack).toMatch(detail);
  expect(line?.err?.stack).toMatch(/\n\s+at /);
}

describe('a failure outside GraphQL execution is answered 500 "Unexpected error." and logged with its stack', () => {
  it('GraphiQL: its own files cannot be read (the production build without them)', async () => {
    const { capture, origin } = await serve({ graphiqlBootstrapScript: pathToFileURL(join(emptyDir, 'bootstrap.browser.js')) });
    const page = await fetch(`${origin}/graphql`, { headers: { accept: 'text/html' } });
    await expectMasked(page, capture, /ENOENT.*bootstrap\.browser\.js/);
    const file = await fetch(`${origin}/graphiql/graphiql.css`);
    await expectMasked(file, capture, /ENOENT.*bootstrap\.browser\.js/);
  });

  it('/metrics: a metric whose collection throws', async () => {
    const { capture, origin, gateway } = await serve({});
    new Gauge({
      name: 'broken_metric',
      help: 'collects by throwing',
      registers: [gateway.metrics.registry],
      collect: () => Promise.reject(failure()),
    });
    await expectMasked(await fetch(`${origin}/metrics`), capture, /secret\.js/);
  });

  it('/health: the answer fails on its way out', async () => {
    const { capture, origin } = await serve({ plugins: [failingOn('/health', 'onResponse')] });
    await expectMasked(await fetch(`${origin}/health`), capture, /secret\.js/);
  });

  it('/readiness: the check fails on its way in, with the CORS headers a page on another origin needs to read the id', async () => {
    const { capture, origin } = await serve({ plugins: [failingOn('/readiness', 'onRequest')] });
    const response = await fetch(`${origin}/readiness`, { headers: { origin: 'https://app.example.com', 'x-request-id': 'probe-7' } });
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(response.headers.get('x-request-id')).toBe('probe-7');
    await expectMasked(response, capture, /secret\.js/);
  });

  it('an unknown path', async () => {
    const { capture, origin } = await serve({ plugins: [failingOn('/nowhere', 'onRequest')] });
    await expectMasked(await fetch(`${origin}/nowhere`), capture, /secret\.js/);
  });
});

describe('a request body that cannot be read', () => {
  it('is "Unexpected error." with the request id, not a caller error, and the log has why with its stack', async () => {
    const capture = captureLogger();
    const built = createGateway({ upstreamUrl: api.url, logger: capture.logger });
    try {
      for (const headers of [{ 'content-length': '40' }, {}]) {
        const body = new ReadableStream({
          start: (controller) => controller.enqueue(new TextEncoder().encode('{"query":')),
          pull: (controller) => controller.error(failure()),
        });
        const response = await built.yoga.fetch('http://gateway.test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
          duplex: 'half',
        } as RequestInit);
        const text = await response.text();
        expect(JSON.parse(text)).toEqual({ errors: [{ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
        expect(text).not.toContain(secretPath);
        expect(text).not.toContain(api.url);
        const requestId = response.headers.get('x-request-id');
        expect(capture.requestLines().find((line) => line.requestId === requestId)).toMatchObject({
          errorCodes: ['INTERNAL_SERVER_ERROR'],
        });
        const errors = capture.lines.filter((line) => line.level === 'error');
        expect(errors).toHaveLength(1);
        expect(errors[0]?.err.stack).toContain(secretPath);
        expect(errors[0]?.err.stack).toMatch(/\n\s+at /);
        capture.lines.length = 0;
      }
    } finally {
      await built.close();
    }
  });
});
