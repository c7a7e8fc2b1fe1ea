// `x-debug-upstream: 1` adds `extensions.upstreamCalls` to the response: what the request cost
// upstream, a call answered from the cache or by another request's identical call marked as such.
// Route templates only: never the key, the host or a concrete URL.
import type { Plugin } from 'graphql-yoga';
import type { UpstreamCall } from '../upstream/transport/request-transport.ts';

const DEBUG_HEADER = 'x-debug-upstream';

interface DebuggedCall {
  method: string;
  route: string;
  /** null when the upstream did not answer (see `outcome`). */
  status: number | null;
  durationMs: number;
  attempts: number;
  /** `ok`, or the failure kind (`http`, `timeout`, `network`, `circuit-open`, ...). */
  outcome: string;
  /** `upstream`: this request's own call; `cache`: answered from the cache; `coalesced`: by another request's identical call. */
  source: 'upstream' | 'cache' | 'coalesced';
}

export function debugExtensionPlugin(): Plugin {
  return {
    onExecutionResult({ request, result, setResult, context }) {
      if (request.headers.get(DEBUG_HEADER)?.trim() !== '1') return;
      if (!result || Symbol.asyncIterator in result) return;
      const calls = (context as { upstreamCalls?: readonly UpstreamCall[] }).upstreamCalls ?? [];
      setResult({ ...result, extensions: { ...result.extensions, upstreamCalls: calls.map(describe) } });
    },
  };
}

function describe(call: UpstreamCall): DebuggedCall {
  return {
    method: call.method,
    route: call.route,
    status: call.status ?? null,
    durationMs: call.durationMs,
    attempts: call.attempts,
    outcome: call.outcome,
    source: call.source ?? 'upstream',
  };
}
