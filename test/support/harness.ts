// The gateway wired to a fresh reference API on a loopback port; tests run operations through
// `yoga.fetch` and read back the upstream calls the reference API recorded. A test that needs an odd
// upstream answer scripts it with `h.api.answerWith` (src/reference-api/scripted.ts).
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { type ExecutionResult, print } from 'graphql';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createGateway, type GatewayOptions } from '../../src/gateway.ts';
import { type ReferenceApiOptions, startReferenceApi } from '../../src/reference-api/index.ts';

interface RunOptions {
  /** The bearer key; `null` sends no Authorization header. Defaults to the demo key. */
  key?: string | null;
  headers?: Record<string, string>;
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;

export async function startHarness(apiOptions: ReferenceApiOptions = {}, gatewayOptions: Partial<GatewayOptions> = {}) {
  const api = await startReferenceApi(apiOptions);
  const gateway = createGateway({ upstreamUrl: api.url, ...gatewayOptions });

  async function run<Result, Variables>(
    document: TypedDocumentNode<Result, Variables> | string,
    variables?: Variables,
    { key = api.keys.demo, headers = {} }: RunOptions = {},
  ) {
    const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...(key === null ? {} : { authorization: `Bearer ${key}` }),
        ...headers,
      },
      body: JSON.stringify({ query: typeof document === 'string' ? document : print(document), variables }),
    });
    const body = (await response.json()) as ExecutionResult<Result>;
    return { status: response.status, headers: response.headers, body, data: body.data as Result, errors: body.errors };
  }

  /** Runs an operation and returns it with the upstream calls it alone caused. */
  async function runCounting<Result, Variables>(
    document: TypedDocumentNode<Result, Variables> | string,
    variables?: Variables,
    options?: RunOptions,
  ) {
    api.clearRequests();
    const result = await run(document, variables, options);
    const calls = api.requests.map((r) => ({ ...r, route: `${r.method} ${r.path}${queryString(r.query)}` }));
    return { ...result, calls, routes: calls.map((c) => c.route) };
  }

  return {
    api,
    gateway,
    run,
    runCounting,
    async close() {
      await gateway.close();
      await api.close();
    },
  };
}

function queryString(query: Record<string, string>): string {
  const params = new URLSearchParams(Object.entries(query).sort(([a], [b]) => a.localeCompare(b)));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** A harness for the enclosing describe block (or file); call the returned function inside tests. A scripted answer lasts one test. */
export function useHarness(...options: Parameters<typeof startHarness>): () => Harness {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness(...options);
  });
  afterEach(() => h?.api.answerWith(null));
  afterAll(() => h?.close());
  return () => {
    if (!h) throw new Error('harness not started');
    return h;
  };
}
