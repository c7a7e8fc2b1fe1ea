// Batched requests (contract: Batching): `POST /graphql` with a JSON array of operations, Yoga's
// `batching` option. Before anything runs, the batch as a whole is checked: at most MAX_BATCH_SIZE
// operations, no Idempotency-Key, and the fan-out estimates of all its operations (persisted ones
// included, each with its variables) summed within MAX_UPSTREAM_CALLS, and with UPSTREAM_BUDGET that
// sum reserved at once (src/budget/budget-plugin.ts). A refusal answers the whole request with one
// error object and HTTP 400. Each operation then runs as its own request (Yoga gives it its own
// context: loaders, errors, the same deadline), in parallel.
import { type DocumentNode, getOperationAST, parse } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors/graphql-errors.ts';

interface BatchingOptions {
  /** MAX_BATCH_SIZE. */
  maxBatchSize: number;
  /** MAX_UPSTREAM_CALLS: what the summed estimate must fit. */
  maxUpstreamCalls: number;
  /** An operation's fan-out estimate (0 for one that will not run: it fails parsing or validation first). */
  estimate(document: DocumentNode, operationName: string | undefined, variables: Record<string, unknown> | undefined): number;
  /** The document text a persisted operation's id stands for, when it is known without a store round trip. */
  persistedText(id: string): string | undefined;
  /** The Idempotency-Key header's name: refused in a batch. */
  idempotencyHeader: string;
  /** UPSTREAM_BUDGET, when set: reserves the summed estimate before anything runs, or throws the refusal. */
  reserve?(request: Request, estimate: number): Promise<void>;
}

interface Batching {
  plugin: Plugin;
  /** Whether this request is a batch (its operations ignore @defer and @stream). */
  inBatch(request: Request): boolean;
}

/** Yoga's own limit is turned off (its refusal is a 413 without a code): this plugin enforces MAX_BATCH_SIZE. */
export const YOGA_BATCHING = { limit: Number.MAX_SAFE_INTEGER };

export function batching(options: BatchingOptions): Batching {
  const batches = new WeakSet<Request>();
  const refuse = (code: 'QUERY_TOO_COMPLEX' | 'BAD_USER_INPUT', message: string, extensions: Record<string, unknown> = {}) =>
    gatewayError(code, message, { ...extensions, http: { status: 400 } });

  const check = (request: Request, operations: GraphQLParams[]): Promise<void> | undefined => {
    batches.add(request);
    const { maxBatchSize, maxUpstreamCalls } = options;
    if (operations.length > maxBatchSize) {
      throw refuse(
        'QUERY_TOO_COMPLEX',
        `This batch holds ${operations.length} operations; at most ${maxBatchSize} may be sent in one request. Send the rest in another.`,
        { limit: 'maxBatchSize', max: maxBatchSize },
      );
    }
    if (request.headers.has(options.idempotencyHeader)) {
      throw refuse('BAD_USER_INPUT', 'Idempotency-Key cannot be sent with a batch: send the mutation on its own request.');
    }
    let estimate = 0;
    for (const operation of operations) estimate += estimateOf(operation);
    if (estimate > maxUpstreamCalls) {
      throw refuse(
        'QUERY_TOO_COMPLEX',
        `This batch could make ${estimate} upstream calls; the budget is ${maxUpstreamCalls}. Send fewer operations, or ask for smaller pages.`,
        { limit: 'maxUpstreamCalls', estimate, budget: maxUpstreamCalls },
      );
    }
    return options.reserve?.(request, estimate);
  };

  const estimateOf = (operation: GraphQLParams): number => {
    const text = typeof operation.query === 'string' ? operation.query : persistedTextOf(operation);
    if (text === undefined) return 0;
    try {
      const document = parse(text);
      const operationName = typeof operation.operationName === 'string' ? operation.operationName : undefined;
      return getOperationAST(document, operationName) ? options.estimate(document, operationName, operation.variables) : 0;
    } catch {
      return 0; // it fails parsing or its variables before running: it makes no call
    }
  };
  const persistedTextOf = (operation: GraphQLParams) => {
    const id = (operation.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined)?.sha256Hash;
    return typeof id === 'string' ? options.persistedText(id) : undefined;
  };

  return {
    inBatch: (request) => batches.has(request),
    plugin: {
      onRequestParse({ request }) {
        return {
          onRequestParseDone({ requestParserResult }) {
            if (Array.isArray(requestParserResult)) return check(request, requestParserResult);
          },
        };
      },
      // A subscription cannot be answered inside a batch's array: its slot holds an error.
      onSubscribe({ args, setResultAndStopExecution }) {
        const { request } = args.contextValue as { request?: Request };
        if (!request || !batches.has(request)) return;
        setResultAndStopExecution({
          errors: [
            gatewayError('BAD_USER_INPUT', 'A subscription cannot be sent in a batch: open it on its own request (SSE or WebSocket).'),
          ],
        });
      },
    },
  };
}
