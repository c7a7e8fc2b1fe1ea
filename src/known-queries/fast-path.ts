// A known query (./known-queries.ts) sent again as a plain JSON POST is executed here, as soon as
// its body is read: Yoga's request parsing, its parse and validation cache and the hooks of every
// plugin before and after execution are skipped, because for such a request they would all decide
// what they decided the first time. What still depends on the request is done as Yoga's path does
// it, with the same functions: its arrival (id, deadline, trace), context, admission, the errors
// masked and logged, and the answer made by Yoga's own result processor. Yoga's `onResponse` hooks
// still run on the answer (the request id header, CORS, the request log line and metrics,
// `Connection: close` once shutting down). Any other request goes on through Yoga's pipeline, with
// the body already read kept in its Request. docs/performance.md#the-fast-path-for-known-queries.
import { type ExecutionResult, GraphQLError } from 'graphql';
import { type Plugin, processRegularResult, type YogaInitialContext } from 'graphql-yoga';
import { Counter, type Registry } from 'prom-client';
import { runCompiled } from '../compiled-operations.ts';
import type { KnownQueries, KnownQuery } from './known-queries.ts';
import { isOperationName } from './known-queries.ts';

interface FastPathOptions {
  known: KnownQueries;
  /** Headers that ask something of a plugin the fast path skips (`x-debug-upstream`, `idempotency-key`): such requests go through Yoga. */
  pipelineHeaders: readonly string[];
  /** The request's context, as Yoga's `context` option makes it. */
  contextFor(initial: YogaInitialContext): object;
  /** What the request log notes of an execution (src/observability/request-log.ts). */
  requestLog: {
    executing(request: Request, operation: { name?: string; type: 'query' }, calls?: readonly unknown[]): void;
    executed(request: Request, result: ExecutionResult): void;
    answering(request: Request, result: ExecutionResult): void;
  };
  /** Admission control (src/limits/admission-plugin.ts). */
  admission: {
    queueing(): boolean;
    run(request: Request, estimate: number, execute: () => ExecutionResult | Promise<ExecutionResult>): Promise<ExecutionResult>;
  };
  /** Yoga's `maskedErrors.maskError`: what the caller is told of each error. */
  maskError(error: unknown): Error;
  /** Where `gateway_fast_path_requests_total` is registered. */
  registry: Registry;
}

type FetchAPI = Parameters<typeof processRegularResult>[1];

/** The media types of a JSON answer, by the `Accept` headers that ask for them; any other `Accept` is negotiated by Yoga. */
const MEDIA_TYPE_BY_ACCEPT = new Map<string | null, string>([
  [null, 'application/json'],
  ['*/*', 'application/json'],
  ['application/json', 'application/json'],
  ['application/graphql-response+json', 'application/graphql-response+json'],
]);

/** Placed after every plugin that can answer or refuse a request in `onRequest` (the body limit last). */
export function fastPathPlugin(options: FastPathOptions): Plugin {
  const { known, requestLog } = options;
  const answered = new Counter({
    name: 'gateway_fast_path_requests_total',
    help: 'GraphQL requests answered by the fast path for known queries (the rest go through the whole pipeline).',
    registers: [options.registry],
  });
  const answer = async (request: Request, query: KnownQuery, params: Params, mediaType: string, fetchAPI: FetchAPI) => {
    const context = options.contextFor({ request, params } as YogaInitialContext) as { upstreamCalls?: readonly unknown[] };
    requestLog.executing(request, { name: query.operationName, type: 'query' }, context.upstreamCalls);
    let result: ExecutionResult;
    try {
      result = await options.admission.run(request, query.estimate, () =>
        runCompiled(query.operation, { rootValue: undefined, contextValue: context, variableValues: {} }),
      );
    } catch (error) {
      // A bug (an execution never throws): logged as unexpected and masked below, as any other.
      result = { errors: [new GraphQLError(error instanceof Error ? error.message : String(error), { originalError: error as Error })] };
    }
    requestLog.executed(request, result);
    const masked = result.errors ? { ...result, errors: result.errors.map((error) => options.maskError(error) as GraphQLError) } : result;
    requestLog.answering(request, masked);
    answered.inc();
    return processRegularResult(masked, fetchAPI, mediaType);
  };

  return {
    onRequest({ request, endResponse, fetchAPI }) {
      const mediaType = fastPathMediaType(request, options.pipelineHeaders);
      if (!mediaType || options.admission.queueing()) return;
      return request.json().then(
        async (body: unknown) => {
          const params = knownQueryParams(body);
          const query = params && known.get(params.query, params.operationName ?? undefined);
          if (params && query) endResponse(await answer(request, query, params, mediaType, fetchAPI));
        },
        // Not JSON: Yoga's request parser reads it again and refuses it as it always has.
        () => undefined,
      );
    },
  };
}

/** The media type of the answer, when the request's headers leave nothing to a plugin the fast path skips. */
function fastPathMediaType(request: Request, pipelineHeaders: readonly string[]): string | undefined {
  if (request.method !== 'POST') return undefined;
  const { headers } = request;
  const contentType = headers.get('content-type');
  if (contentType !== 'application/json' && !contentType?.startsWith('application/json;')) return undefined;
  // A chunked body is counted by the body limit's request parser; one with a length was checked in `onRequest`.
  if (headers.get('content-length') === null) return undefined;
  if (pipelineHeaders.some((name) => headers.has(name))) return undefined;
  return MEDIA_TYPE_BY_ACCEPT.get(headers.get('accept'));
}

interface Params {
  query: string;
  operationName?: string | null;
  variables?: Record<string, never> | null;
}

/** The body's parameters when they hold a query and nothing a plugin would look at: no variables, no extensions. */
function knownQueryParams(body: unknown): Params | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  for (const [key, value] of Object.entries(body)) {
    if (
      key === 'query'
        ? typeof value !== 'string'
        : key === 'operationName'
          ? !validName(value)
          : key === 'variables'
            ? !emptyObject(value)
            : true
    )
      return undefined;
  }
  return 'query' in body ? (body as Params) : undefined;
}

const validName = (value: unknown) => value === null || (typeof value === 'string' && isOperationName(value));
const emptyObject = (value: unknown) =>
  value === null || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value as object).length === 0);
