// The gateway's Node request listener: a known query (./known-queries.ts) sent again as a plain JSON
// POST or a GET, as text or by a persisted operation's id, is executed here as soon as its
// parameters are read, and every other request goes on to Yoga.
// For such a request Yoga's pipeline (its Fetch-API objects, request parsing, parse and validation
// cache, and the hooks of every plugin) would decide all it decided the first time. What depends on
// the request is done with the functions the pipeline uses: its arrival (id, deadline, trace), the
// request log line and metrics, the upstream budget and cache, admission, the context, the errors
// masked, and the status, headers and body from Yoga's own result processor, with the CORS headers
// its CORS plugin would add. A request that asks for something only a plugin does (debugging, an
// idempotency key, the budget's report, a shutting-down connection) goes to Yoga, with the body
// already read handed over.
// docs/performance.md#the-fast-path-for-known-queries.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { type ExecutionResult, GraphQLError } from 'graphql';
import { processRegularResult, type YogaInitialContext } from 'graphql-yoga';
import { Counter, type Registry } from 'prom-client';
import { runCompiled } from '../compiled-operations.ts';
import type { KnownQueries, KnownQuery } from './known-queries.ts';
import { isNonEmptyObject, knownQueryParams, type Params, parsedJson, urlParams } from './request-params.ts';

interface FastPathOptions {
  known: KnownQueries;
  /** Where GraphQL is served: only this exact path is taken. */
  endpoint: string;
  /** Larger bodies go to Yoga, which refuses them (MAX_REQUEST_BYTES). */
  maxRequestBytes: number;
  /** Headers that ask something of a plugin the fast path skips (`x-debug-upstream`, `idempotency-key`, `x-upstream-budget`). */
  pipelineHeaders: readonly string[];
  /** The CORS headers Yoga's CORS plugin adds to an answer to this request; null without an `Origin`. */
  corsHeaders(request: Pick<Request, 'headers'>): Record<string, string> | null;
  /** The text a persisted operation's id stands for, when known without a store round trip (src/persisted). */
  persistedText(id: string): string | undefined;
  /** False when only persisted operations run (PERSISTED_OPERATIONS): a query sent as text goes to Yoga, which refuses it. */
  acceptsQueryText: boolean;
  /** False with CSRF prevention (CSRF_PREVENTION), which asks a GET for a header: every GET goes to Yoga. */
  takesGet: boolean;
  /** False while a request could be refused before its body is read: while requests queue for admission. */
  open(): boolean;
  /** Once true, no request takes the fast path and every answer closes its connection, as the pipeline's do. */
  shuttingDown(): boolean;
  /** Notes the request's arrival as the arrival plugin does; returns its id. */
  arrive(request: Request): string;
  /** The request's context, as Yoga's `context` option makes it. */
  contextFor(initial: YogaInitialContext): { upstreamCalls: readonly unknown[] };
  /** The request log's steps (src/observability/request-log.ts). */
  requestLog: {
    begin(request: object, requestId: string): void;
    executing(request: object, operation: { name?: string; type: 'query' }, calls?: readonly unknown[]): void;
    executed(request: object, result: ExecutionResult): void;
    answering(request: object, result: ExecutionResult): void;
    end(request: object, status: number): void;
  };
  /** With CACHE or UPSTREAM_BUDGET: what their plugins do around an execution (src/upstream-economy). */
  economy?: {
    execute(request: Request, context: object, estimate: number, run: () => Promise<ExecutionResult>): Promise<ExecutionResult>;
  };
  /** Admission control (src/limits/admission-plugin.ts). */
  admission: {
    run(request: Request, estimate: number, execute: () => ExecutionResult | Promise<ExecutionResult>): Promise<ExecutionResult>;
  };
  /** Yoga's `maskedErrors.maskError`: what the caller is told of each error. */
  maskError(error: unknown): Error;
  /** Where `gateway_fast_path_requests_total` is registered. */
  registry: Registry;
  /** Told of an error the fast path did not expect (a bug): the caller is answered 500 "Unexpected error.". */
  onBug(error: unknown): void;
}

/** The media types of a JSON answer, by the `Accept` headers that ask for them; Yoga negotiates any other. */
const MEDIA_TYPE_BY_ACCEPT = new Map<string | undefined, string>([
  [undefined, 'application/json'],
  ['*/*', 'application/json'],
  ['application/json', 'application/json'],
  ['application/graphql-response+json', 'application/graphql-response+json'],
]);

export function fastPathListener(options: FastPathOptions, pipeline: RequestListener): RequestListener {
  const { known, requestLog } = options;
  const answeredCount = new Counter({
    name: 'gateway_fast_path_requests_total',
    help: 'GraphQL requests answered by the fast path for known queries (the rest go through the whole pipeline).',
    registers: [options.registry],
  });

  const answer = async (req: IncomingMessage, res: ServerResponse, query: KnownQuery, params: Params, mediaType: string) => {
    const request = requestOf(req, res);
    const requestId = options.arrive(request);
    requestLog.begin(request, requestId);
    const context = options.contextFor({ request, params } as YogaInitialContext);
    requestLog.executing(request, { name: query.operationName, type: 'query' }, context.upstreamCalls);
    let result: ExecutionResult;
    try {
      const admitted = () =>
        options.admission.run(request, query.weight, () =>
          runCompiled(query.operation, { rootValue: undefined, contextValue: context, variableValues: {} }),
        );
      // Admission inside the budget's reservation, as the pipeline's plugins are ordered.
      result = await (options.economy ? options.economy.execute(request, context, query.estimate, admitted) : admitted());
    } catch (error) {
      // A bug (an execution never throws): logged as unexpected and masked below, as any other.
      result = { errors: [new GraphQLError(error instanceof Error ? error.message : String(error), { originalError: error as Error })] };
    }
    requestLog.executed(request, result);
    const masked = result.errors ? { ...result, errors: result.errors.map((error) => options.maskError(error) as GraphQLError) } : result;
    requestLog.answering(request, masked);
    const made = yogaAnswer(masked, mediaType);
    requestLog.end(request, made.status);
    answeredCount.inc();
    const headers = corsHeadersOf(request);
    headers['x-request-id'] = requestId;
    // Shutdown began while it ran: as src/http closes the pipeline's connections.
    if (options.shuttingDown()) headers.connection = 'close';
    send(res, made, headers);
  };
  /** Named in lower case, as Yoga's Node adapter writes every header. */
  const corsHeadersOf = (request: Pick<Request, 'headers'>) => {
    const headers = options.corsHeaders(request);
    const named: Record<string, string> = {};
    if (headers) for (const name in headers) named[name.toLowerCase()] = headers[name] as string;
    return named;
  };

  /** The text the request runs: its own, or the one its persisted operation's id stands for. */
  const queryTextOf = ({ query, extensions }: Params) => {
    if (extensions) return options.persistedText(extensions.persistedQuery.sha256Hash);
    return options.acceptsQueryText ? query : undefined;
  };

  /** Answers the request if its parameters ask for a known query; false if they do not. */
  const answerKnown = (req: IncomingMessage, res: ServerResponse, sent: unknown, mediaType: string) => {
    const params = knownQueryParams(sent);
    const text = params && queryTextOf(params);
    const query = text !== undefined && known.get(text, params?.operationName ?? undefined);
    // As the persisted-operation plugins hand the pipeline the text an id stands for. Object.assign, as
    // in `send`: an id's parameters have no `query`, and a spread then added to is a new hidden class.
    return params && query ? answer(req, res, query, Object.assign({}, params, { query: text }), mediaType) : false;
  };
  const failed = (req: IncomingMessage, res: ServerResponse, mediaType: string) => (error: unknown) => {
    options.onBug(error);
    if (res.headersSent) return res.destroy();
    send(res, yogaAnswer({ errors: [options.maskError(error) as GraphQLError] }, mediaType), corsHeadersOf({ headers: headersOf(req) }));
  };

  return (req, res) => {
    const mediaType = fastPathMediaType(req, options);
    if (!mediaType || !options.open() || options.shuttingDown()) return pipeline(req, res);
    if (req.method === 'GET') {
      // Nothing to read first: looked up at once, and a throw is answered here, not left to Node.
      let answered: Promise<void> | false;
      try {
        answered = answerKnown(req, res, urlParams(req.url as string), mediaType);
      } catch (error) {
        return failed(req, res, mediaType)(error);
      }
      if (answered) return void answered.catch(failed(req, res, mediaType));
      return pipeline(req, res);
    }
    readBody(req)
      .then(
        (bytes) => {
          const body = parsedJson(bytes);
          const answered = answerKnown(req, res, body, mediaType);
          if (answered) return answered;
          // Yoga's Node adapter takes a body already read from `req.body`: a parsed object goes to its
          // JSON parser as it is; anything else (not JSON, not an object) as the bytes, parsed again.
          (req as { body?: unknown }).body = isNonEmptyObject(body) ? body : bytes;
          return pipeline(req, res);
        },
        // The client went away while sending it: nobody to answer.
        () => req.destroy(),
      )
      .catch(failed(req, res, mediaType));
  };
}

/**
 * The media type of the answer, when the request is a JSON POST to the endpoint or a GET of it with
 * parameters, and its headers leave nothing to a plugin the fast path skips.
 */
function fastPathMediaType(req: IncomingMessage, options: FastPathOptions): string | undefined {
  const { headers } = req;
  if (req.method === 'POST') {
    if (req.url !== options.endpoint) return undefined;
    const contentType = headers['content-type'];
    if (contentType !== 'application/json' && !contentType?.startsWith('application/json;')) return undefined;
    // A chunked body is counted by the body limit's request parser, and an empty one is Yoga's to refuse.
    const length = Number(headers['content-length']);
    if (!(length > 0 && length <= options.maxRequestBytes)) return undefined;
  } else if (req.method === 'GET') {
    // A GET with a body is Yoga's to make sense of.
    if (!options.takesGet || !req.url?.startsWith(`${options.endpoint}?`) || headers['content-length'] || headers['transfer-encoding'])
      return undefined;
  } else return undefined;
  if (options.pipelineHeaders.some((name) => headers[name] !== undefined)) return undefined;
  return MEDIA_TYPE_BY_ACCEPT.get(headers.accept);
}

/** The body, as many bytes as its Content-Length (Node's parser holds it to that). */
function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/**
 * What the context, admission and the request log read of a request (its headers, method and the
 * signal of the caller leaving), without building a Fetch-API Request. The signal aborts as Yoga's
 * Node adapter aborts its own: when the response closes before it was sent.
 */
function requestOf(req: IncomingMessage, res: ServerResponse): Request {
  const caller = new AbortController();
  const left = () => caller.abort();
  res.once('close', left);
  res.once('finish', () => res.off('close', left));
  return { method: req.method, headers: headersOf(req), signal: caller.signal } as unknown as Request;
}

/** What the fast path's readers use of a Fetch-API `Headers`: `get` and `has`, over Node's parsed headers. */
function headersOf(req: IncomingMessage): Headers {
  return {
    get: (name: string) => {
      const value = req.headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
    has: (name: string) => req.headers[name.toLowerCase()] !== undefined,
  } as Headers;
}

/** What Yoga's result processor is given as its `Response`: it keeps what it is made with. One class: a class per answer would be a new hidden class each time. */
class AnswerParts {
  constructor(
    readonly body: string,
    readonly init: { status: number; headers: Record<string, string> },
  ) {}
}
const PARTS_API = { Response: AnswerParts } as unknown as Parameters<typeof processRegularResult>[1];

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The status, headers and body Yoga's result processor makes of a result: its own code, without its Response. */
function yogaAnswer(result: ExecutionResult, mediaType: string): Answer {
  const { body, init } = processRegularResult(result, PARTS_API, mediaType) as unknown as AnswerParts;
  return { status: init.status, headers: init.headers, body };
}

/**
 * Object.assign rather than `{ ...headers, name: value, ...more }`: V8 gives an object spread then
 * added to a hidden class of its own, one more per answer for it to build and for Node to miss on.
 */
function send(res: ServerResponse, { status, headers, body }: Answer, moreHeaders: Record<string, string> = {}): void {
  res.writeHead(status, Object.assign({}, headers, { 'content-length': Buffer.byteLength(body) }, moreHeaders));
  res.end(body);
}
