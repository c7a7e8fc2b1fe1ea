// Shared by the cache and budget specs: gateways with a cache on one reference API, GraphQL with the
// debug and budget extensions, and what a store must never hold.
import { createHash } from 'node:crypto';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway.ts';
import { captureLogger, postGraphQL } from '../ops/support.ts';

export interface TestGateway {
  gateway: Gateway;
  log: ReturnType<typeof captureLogger>;
  /** Runs a GraphQL operation with the debug and budget extensions on. */
  post(
    query: string,
    key: string | undefined,
    options?: { variables?: unknown; headers?: Record<string, string> },
  ): ReturnType<typeof postGraphQL>;
  /** `/readiness`: its status and body. */
  readiness(): Promise<{ status: number; body: any }>;
}

export function testGateway(options: GatewayOptions): TestGateway {
  const log = captureLogger('info');
  const gateway = createGateway({ logger: log.logger, ...options });
  return {
    gateway,
    log,
    post: (query, key, { variables, headers = {} } = {}) =>
      postGraphQL(gateway.yoga.fetch, query, {
        key,
        variables,
        headers: { 'x-debug-upstream': '1', 'x-upstream-budget': '1', ...headers },
      }),
    async readiness() {
      const response = await gateway.yoga.fetch('http://gateway.test/readiness');
      return { status: response.status, body: await response.json() };
    },
  };
}

/** Waits until the gateway's /readiness reports its cache store as `reachable` (at most `withinMs`). */
export async function untilStoreReachable(target: TestGateway, reachable = true, withinMs = 5000): Promise<void> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const { body } = await target.readiness();
    if (body.cache?.reachable === reachable) return;
    if (Date.now() > deadline)
      throw new Error(`the cache store did not become ${reachable ? 'reachable' : 'unreachable'}: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Two instances on one store (as behind a load balancer), once each reaches it; closed again if one does not. */
export async function twoInstances(options: GatewayOptions): Promise<[TestGateway, TestGateway]> {
  const pair: [TestGateway, TestGateway] = [testGateway(options), testGateway(options)];
  try {
    await Promise.all(pair.map((instance) => untilStoreReachable(instance)));
  } catch (error) {
    await Promise.all(pair.map((instance) => instance.gateway.close()));
    throw error;
  }
  return pair;
}

/** Where each upstream call of a response came from: `upstream`, `cache` or `coalesced`. */
export function sources(body: { extensions?: { upstreamCalls?: { source: string }[] } }): string[] {
  return (body.extensions?.upstreamCalls ?? []).map((call) => call.source);
}

/** A key as it must never be stored: itself, and every plain digest of it anyone could compute from a guess. */
export function forbiddenForms(key: string): string[] {
  const digests = ['md5', 'sha1', 'sha256', 'sha512'].flatMap((algorithm) => {
    const digest = createHash(algorithm).update(key).digest();
    return [digest.toString('hex'), digest.toString('base64'), digest.toString('base64url')];
  });
  // A truncated digest would still be a plain digest: its first 16 characters must not appear either.
  return [key, ...digests, ...digests.map((digest) => digest.slice(0, 16))];
}
