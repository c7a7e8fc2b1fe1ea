// One summary per GraphQL request (request id, operation, duration, upstream calls, outcome), handed
// to the log line and the metrics; and each unexpected error of an operation, with its request id.
// The request id is passed along explicitly: an AsyncLocalStorage would turn on Node's promise
// hooks for every promise of every request.
import { type ExecutionResult, GraphQLError, getOperationAST } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';
import { GRAPHQL_ENDPOINT } from '../config/index.ts';
import { truncate } from '../truncate.ts';
import type { UpstreamCall } from '../upstream/transport/request-transport.ts';
import type { Logger } from './logger.ts';

export interface OperationSummary {
  requestId: string;
  /** The executed operation's name, cut to `maxOperationNameLength`; null when anonymous or when the request never got that far. */
  operation: string | null;
  operationType: 'query' | 'mutation' | 'subscription' | null;
  /** The HTTP status of the response. */
  status: number;
  durationMs: number;
  /** Calls this request made upstream. */
  upstreamCalls: number;
  /** Sends beyond the first (GET retries) over all upstream calls. */
  upstreamRetries: number;
  /** GETs answered from the cache, and by another request's identical call, instead (CACHE). */
  cacheHits: number;
  coalescedCalls: number;
  outcome: 'ok' | 'error';
  /** `extensions.code` of each distinct error in the response, sorted. */
  errorCodes: string[];
  /**
   * Whether the upstream accepted the request's key: one of its calls was answered with another
   * status than 401, or from the cache made under that key. Only such a request names a metric series.
   */
  keyAccepted: boolean;
}

interface RequestLogOptions {
  logger: Logger;
  /** The id arrivalPlugin (src/gateway.ts) gave this request (it is the first to see a request). */
  requestIdOf(request: Request): string | undefined;
  /** Told of every finished GraphQL request after it is logged (metrics, the request's span). */
  onSummary?(summary: OperationSummary, request: object): void;
  /** Whether an error is a bug (the caller sees "Unexpected error."), as opposed to a contract code. */
  isUnexpected(error: Error): boolean;
  /** Original errors logged here, so Yoga's own masking log does not report them again. */
  logged: WeakSet<Error>;
  /** Operation names are chosen by callers: the summary keeps at most this many characters. */
  maxOperationNameLength: number;
}

interface Pending {
  startedAt: number;
  requestId: string;
  operation: string | null;
  operationType: OperationSummary['operationType'];
  calls: readonly UpstreamCall[];
  errorCodes: Set<string>;
  /** An incremental answer (@defer/@stream) whose last payload has not left yet: it is logged then. */
  streaming: boolean;
  /** The status it was answered with, while its payloads are still leaving. */
  status?: number;
}

/**
 * The request log's plugin, and the same steps for a request that a path of its own serves (the
 * WebSocket operations, src/http/websocket.ts), keyed by whatever stands for that request there.
 */
export interface RequestLog {
  plugin: Plugin;
  /** A GraphQL request arrived: its duration counts from now. */
  begin(request: object, requestId: string): void;
  /** The operation the request executes, and its context's upstream calls (read when it is answered). */
  executing(request: object, operation: { name?: string; type: OperationSummary['operationType'] }, calls?: readonly UpstreamCall[]): void;
  /** Logs each unexpected error of an executed result, with the request id; before masking, which hides them. */
  executed(request: object, result: ExecutionResult): void;
  /** Notes the codes of the errors the caller is answered with. */
  answering(request: object, result: ExecutionResult): void;
  /**
   * It is answered with `status`: its summary line, then `onSummary`; for an incremental answer,
   * once its last payload has left (or its client went away), with the calls of every payload.
   */
  end(request: object, status: number): void;
}

export function createRequestLog(options: RequestLogOptions): RequestLog {
  const maxNameLength = options.maxOperationNameLength;
  const operationName = (name: string | undefined) => (name === undefined ? null : truncate(name, maxNameLength));
  const pending = new WeakMap<object, Pending>();
  // The summary line holds only the named fields above (ids, numbers, codes), so it skips pino's
  // redaction, which allocates on every line as it walks its wildcard paths. Error lines,
  // which carry arbitrary objects, still go through the redacting logger.
  const summaryLog = options.logger.child({}, { redact: [] });

  const begin: RequestLog['begin'] = (request, requestId) => {
    pending.set(request, {
      startedAt: performance.now(),
      requestId,
      operation: null,
      operationType: null,
      calls: [],
      errorCodes: new Set(),
      streaming: false,
    });
  };
  const executing: RequestLog['executing'] = (request, operation, calls) => {
    const entry = pending.get(request);
    if (!entry) return;
    entry.operation = operationName(operation.name);
    entry.operationType = operation.type;
    if (calls) entry.calls = calls;
  };
  const executed: RequestLog['executed'] = (request, result) => {
    const requestId = pending.get(request)?.requestId;
    if (requestId === undefined) return;
    for (const error of result.errors ?? []) {
      const original = error.originalError;
      if (!original || original instanceof GraphQLError || !options.isUnexpected(original)) continue;
      options.logged.add(original);
      options.logger.error(
        { requestId, err: original, path: error.path?.join('.') },
        'unexpected error (the caller saw "Unexpected error.")',
      );
    }
  };
  const answering: RequestLog['answering'] = (request, result) => {
    const entry = pending.get(request);
    for (const error of result.errors ?? []) entry?.errorCodes.add(errorCode(error));
  };

  const end: RequestLog['end'] = (request, status) => {
    const entry = pending.get(request);
    if (!entry) return;
    if (entry.streaming) {
      entry.status = status;
      return;
    }
    pending.delete(request);
    const errorCodes = [...entry.errorCodes].sort();
    const summary: OperationSummary = {
      requestId: entry.requestId,
      operation: entry.operation,
      operationType: entry.operationType,
      status,
      durationMs: Math.round((performance.now() - entry.startedAt) * 10) / 10,
      ...tally(entry.calls),
      outcome: errorCodes.length === 0 && status < 400 ? 'ok' : 'error',
      errorCodes,
      keyAccepted: entry.calls.some(acceptsKey),
    };
    summaryLog.info(summary, 'graphql request');
    options.onSummary?.(summary, request);
  };

  const plugin: Plugin = {
    onRequest({ request, url }) {
      if (isGraphQLPath(url.pathname, GRAPHQL_ENDPOINT) && request.method !== 'OPTIONS') begin(request, options.requestIdOf(request) ?? '');
    },
    onParams({ request, params }) {
      const entry = pending.get(request);
      if (!entry) return;
      // The name the client asked for, until execution knows the real one (kept only if it is a name).
      if (typeof params.operationName === 'string' && GRAPHQL_NAME.test(params.operationName))
        entry.operation = operationName(params.operationName);
    },
    onExecute({ args }) {
      const context = args.contextValue as { request?: Request; upstreamCalls?: readonly UpstreamCall[] };
      const request = context.request;
      if (!request || !pending.has(request)) return;
      const operation = getOperationAST(args.document, args.operationName);
      executing(request, { name: operation?.name?.value, type: operation?.operation ?? null }, context.upstreamCalls);
      return {
        // Before Yoga masks them (its masking plugin runs after ours): the original errors are here.
        onExecuteDone({ result }) {
          if (!isAsyncIterable(result)) {
            executed(request, result);
            return;
          }
          // An incremental answer: its line waits for the last payload (the deferred fragments' calls).
          const entry = pending.get(request);
          if (entry) entry.streaming = true;
          return {
            onEnd() {
              if (!entry) return;
              entry.streaming = false;
              // Answered already (the first payload left with the response): logged now. Otherwise
              // the payloads were all made before the response: logged when it is.
              if (entry.status !== undefined) end(request, entry.status);
            },
          };
        },
      };
    },
    onResultProcess({ request, result }) {
      const results = Array.isArray(result) ? result : [result];
      for (const single of results) {
        if (single && !(Symbol.asyncIterator in single)) answering(request, single);
      }
    },
    onResponse({ request, response }) {
      const type = response.headers.get('content-type') ?? '';
      // GraphiQL's page is not an operation.
      if (type.startsWith('text/html')) {
        pending.delete(request);
        return;
      }
      const entry = pending.get(request);
      // A stream that is not sent (refused with 406 before it ran) has no last payload to wait for.
      if (entry?.streaming && !STREAMED_TYPE.test(type)) entry.streaming = false;
      end(request, response.status);
    },
  };
  return { plugin, begin, executing, executed, answering, end };
}

function tally(
  calls: readonly UpstreamCall[],
): Pick<OperationSummary, 'upstreamCalls' | 'upstreamRetries' | 'cacheHits' | 'coalescedCalls'> {
  const counts = { upstreamCalls: 0, upstreamRetries: 0, cacheHits: 0, coalescedCalls: 0 };
  for (const call of calls) {
    if (call.source === 'cache') counts.cacheHits += 1;
    else if (call.source === 'coalesced') counts.coalescedCalls += 1;
    else {
      counts.upstreamCalls += 1;
      counts.upstreamRetries += call.attempts - 1;
    }
  }
  return counts;
}

/** A call that shows the upstream took the caller's key: answered with another status than 401, or from the cache under that key. */
const acceptsKey = (call: UpstreamCall) => call.source === 'cache' || (call.status !== undefined && call.status !== 401);

/** The media types an incremental answer's payloads leave in. */
const STREAMED_TYPE = /^(multipart\/mixed|text\/event-stream)/i;

/** Only a GraphQL name can name an operation: the name a caller asks for is kept only then. */
const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** `extensions.code`, or what kind of failure an error without one is (Yoga's own request errors). */
function errorCode(error: { extensions?: Record<string, unknown> }): string {
  const code = error.extensions?.code;
  if (typeof code === 'string') return code;
  const status = (error.extensions?.http as { status?: number } | undefined)?.status;
  return status ? `HTTP_${status}` : 'UNKNOWN';
}

/**
 * Whether a path is where GraphQL is served: the endpoint, with or without a trailing slash, as Yoga
 * serves it (src/http's graphqlPathOnly answers 404 to every other path Yoga would run GraphQL on).
 */
export function isGraphQLPath(pathname: string, endpoint: string): boolean {
  return pathname === endpoint || pathname === `${endpoint}/`;
}
