// The gateway's only way to reach the REST upstream: one keep-alive undici Pool, a per-call deadline,
// a cap on each answer's size, GET-only retries, and every failure turned into an UpstreamError in
// one place.

import { setTimeout as sleep } from 'node:timers/promises';
import { type Dispatcher, Pool } from 'undici';
import type { GatewayConfig } from '../../config/index.ts';
import { parseErrorBody } from '../error-body.ts';
import { upstreamTextRedaction } from '../redact.ts';
import { isRetryable, retryDelayMs } from '../resilience/retry.ts';
import { parseRetryAfter, retryAfterFromDetail } from '../resilience/retry-after.ts';
import { type HttpMethod, InvalidKeyError, UpstreamError, type UpstreamErrorInit } from '../upstream-error.ts';
import { AnswerBuffers, Attempt, type RawAnswer, ResponseTooLargeError } from './attempt.ts';
import { type CallDeadline, startDeadline } from './deadline.ts';
import { withinJsonValues } from './json-values.ts';

export type { HttpMethod } from '../upstream-error.ts';

export interface UpstreamTransportOptions {
  /** The REST base URL without `/api`, e.g. `http://127.0.0.1:8010`; a path prefix is kept. */
  baseUrl: string;
  /**
   * Budget for one `request()` in milliseconds, end to end: waiting for a pooled connection, the
   * headers, the whole body, every retry and the waits between them.
   */
  timeoutMs: number;
  /**
   * Largest answer body accepted, in bytes: a larger Content-Length fails before reading, a longer
   * chunked body fails as soon as it passes the cap; either way the socket is destroyed.
   */
  maxResponseBytes: number;
  /**
   * Most values (arrays, objects, and items after a comma) an answer longer than 64 KiB may hold;
   * one with more, or nested deeper than MAX_ANSWER_DEPTH, fails as too large before it is parsed
   * (src/upstream/transport/json-values.ts).
   */
  maxJsonValues: number;
  /**
   * Most answer bytes all calls in flight may buffer at once; a call whose next chunk would pass
   * it fails as too large.
   */
  maxBufferedBytes: number;
  /**
   * Size of the undici Pool (ignored when `dispatcher` is given).
   */
  connections: number;
  /**
   * How many times a GET is sent again after a dropped/refused connection or a 502/503/504.
   */
  getRetries: number;
  /**
   * Base of the exponential backoff (equal jitter) between retries.
   * @default RETRY_BASE_DELAY_MS
   */
  retryBaseDelayMs?: number;
  /**
   * Where requests go; tests inject a MockAgent or another Pool. The transport closes only a Pool it created.
   * @default a keep-alive undici Pool to baseUrl's origin
   */
  dispatcher?: Dispatcher;
}

export interface UpstreamRequest {
  method: HttpMethod;
  /** Built by paths.ts: starts with `/api/`, ends with `/`, segments encoded. */
  path: string;
  /** Route template (ids as `:param`) for errors, metrics, logs and traces: never the concrete path. */
  route: string;
  query?: Record<string, string | number | undefined>;
  /** JSON-serialised when defined. */
  body?: unknown;
  /** The caller's bearer key: sent as `Authorization: Bearer <key>` and nowhere else. */
  key: string;
  /** Sent as `x-request-id`. */
  requestId?: string;
  /** The GraphQL request's abort signal (its client going away). */
  signal?: AbortSignal;
  /** Whether an answer has the shape the client relies on (its own check): only such answers are cached. */
  answerShape?: (body: unknown) => boolean;
  /** Hand back the body's text too (the cache stores it); otherwise it is dropped once parsed. */
  keepText?: boolean;
  /**
   * When the GraphQL request's upstream budget ends (REQUEST_DEADLINE_MS), as a `performance.now()`
   * time: an attempt in flight ends there too, and a call that starts later sends nothing.
   */
  deadlineAt?: number;
  /** This call's span context (src/tracing): sent as `traceparent` and `tracestate`. */
  trace?: TraceHeaders;
}

/** W3C Trace Context headers of one call, written by src/tracing from a valid span context. */
export interface TraceHeaders {
  traceparent: string;
  tracestate?: string;
}

export interface UpstreamResponse<T = unknown> {
  status: number;
  /** `undefined` for 204 or an empty body. */
  body: T;
  durationMs: number;
  attempts: number;
  /** The body as it arrived, when the request asked to keep it. */
  text?: string;
  /** Served without an upstream call of this request: from the cache, or by another request's identical call. */
  source?: 'cache' | 'coalesced';
}

export interface UpstreamTransport {
  /** Resolves only on 2xx; otherwise throws UpstreamError (or InvalidKeyError, before sending anything). */
  request<T = unknown>(req: UpstreamRequest): Promise<UpstreamResponse<T>>;
  close(): Promise<void>;
}

const USER_AGENT = 'org-graphql-gateway/0.1 (+undici)';
/** What a bearer token and a request id may contain: visible ASCII, so no header can be injected. */
const HEADER_TOKEN = /^[\x21-\x7e]+$/;
const MAX_REQUEST_ID_LENGTH = 200;

/** Base of the backoff between GET retries (not a setting: tests shorten it). */
const RETRY_BASE_DELAY_MS = 50;

/** Failures undici reports for our own mistakes, not the network's: let them surface unmasked to logs. */
const PROGRAMMING_ERROR_CODES = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_INVALID_RETURN_VALUE', 'UND_ERR_NOT_SUPPORTED']);

interface Target {
  origin: string;
  pathPrefix: string;
}

interface CallContext {
  req: UpstreamRequest;
  route: string;
  deadline: CallDeadline;
  startedAt: number;
  attempt: number;
  /** Summed over the attempts so far (see UpstreamError). */
  sent: boolean;
  queuedMs: number;
  wireMs: number;
}

/** The transport's settings in the gateway's configuration. */
export function transportSettings(config: GatewayConfig) {
  return {
    timeoutMs: config.upstreamTimeoutMs,
    connections: config.upstreamConnections,
    getRetries: config.upstreamGetRetries,
    maxResponseBytes: config.maxUpstreamResponseBytes,
    maxBufferedBytes: config.maxUpstreamBufferedBytes,
    maxJsonValues: config.maxUpstreamJsonValues,
  } satisfies Partial<UpstreamTransportOptions>;
}

export function createUpstreamTransport(options: UpstreamTransportOptions): UpstreamTransport {
  const target = parseBaseUrl(options.baseUrl);
  const { timeoutMs, getRetries, maxResponseBytes, maxJsonValues } = options;
  const retryBaseDelayMs = options.retryBaseDelayMs ?? RETRY_BASE_DELAY_MS;
  const buffers = new AnswerBuffers(options.maxBufferedBytes);
  const ownPool = options.dispatcher ? undefined : new Pool(target.origin, { connections: options.connections });
  const dispatcher: Dispatcher = options.dispatcher ?? (ownPool as Pool);
  const redactorFor = upstreamTextRedaction(target.origin);

  function request<T>(req: UpstreamRequest): Promise<UpstreamResponse<T>> {
    if (!HEADER_TOKEN.test(req.key)) return Promise.reject(new InvalidKeyError());
    if (!req.path.startsWith('/api/')) return Promise.reject(new Error('UpstreamRequest.path must be built by paths.ts (/api/...).'));
    const ctx: CallContext = {
      req,
      route: req.route,
      deadline: startDeadline(timeoutMs, req.signal, req.deadlineAt),
      startedAt: performance.now(),
      attempt: 0,
      sent: false,
      queuedMs: 0,
      wireMs: 0,
    };
    return nextAttempt(ctx) as Promise<UpstreamResponse<T>>;
  }

  /**
   * The call's next attempt, and on a retryable failure the one after it. Promise chains rather
   * than an async loop (as `send`): a call in flight holds no suspended frame here.
   */
  function nextAttempt(ctx: CallContext): Promise<UpstreamResponse> {
    ctx.attempt += 1;
    let sent: Promise<UpstreamResponse>;
    try {
      sent = send(ctx);
    } catch (caught) {
      sent = Promise.reject(caught);
    }
    return sent.catch((caught: unknown) => retryAfterFailure(ctx, toUpstreamError(caught, ctx)));
  }

  async function retryAfterFailure(ctx: CallContext, error: UpstreamError): Promise<UpstreamResponse> {
    const maxAttempts = ctx.req.method === 'GET' ? 1 + getRetries : 1;
    if (ctx.attempt >= maxAttempts || !isRetryable(error)) throw error;
    const delay = retryDelayMs(error, ctx.attempt, retryBaseDelayMs);
    // Waiting past the deadline would only turn this answer into a timeout.
    if (delay >= ctx.deadline.remainingMs()) throw error;
    try {
      await sleep(delay, undefined, ctx.deadline.signal ? { signal: ctx.deadline.signal } : undefined);
    } catch (caught) {
      throw toUpstreamError(caught, ctx);
    }
    return nextAttempt(ctx);
  }

  /**
   * One attempt: resolves with a 2xx answer (the call's response), rejects with UpstreamError for
   * any other answer. `.then` rather than an async function: a call in flight holds a promise and a
   * reaction here, not a suspended frame as well (the young collections copy what calls in flight hold).
   */
  function send(ctx: CallContext): Promise<UpstreamResponse> {
    const { req, deadline } = ctx;
    // Queued behind the request's other calls until its deadline passed, or the caller left: send nothing.
    const stopped = deadline.abortKind();
    if (stopped) return Promise.reject(failure(ctx, { kind: stopped }));
    // A write once on a socket is seen through to its answer within the call's own timeout: the
    // caller leaving or its request deadline no longer cut it (the upstream would apply it anyway,
    // and nobody would learn the outcome). A read may still be abandoned.
    const onceSent = req.method === 'GET' ? undefined : startDeadline(timeoutMs - (performance.now() - ctx.startedAt));
    const attempt = new Attempt(deadline, maxResponseBytes, buffers, onceSent);
    dispatcher.dispatch(
      {
        origin: target.origin,
        path: target.pathPrefix + req.path + queryString(req.query),
        method: req.method,
        headers: outgoingHeaders(req),
        body: req.body === undefined ? null : JSON.stringify(req.body),
        // The call's deadline bounds the whole attempt; undici's per-phase timers would only add work.
        headersTimeout: 0,
        bodyTimeout: 0,
      },
      attempt,
    );
    return attempt.answered.then(
      () => {
        endAttempt(ctx, attempt);
        return responseOf(ctx, attempt.takeAnswer());
      },
      (error: unknown) => {
        endAttempt(ctx, attempt);
        throw error;
      },
    );
  }

  /** What an ended attempt tells the call: the deadline it ended under (whether a failure was a timeout or an abort), and its times. */
  function endAttempt(ctx: CallContext, attempt: Attempt): void {
    ctx.deadline = attempt.deadline;
    ctx.sent ||= attempt.sent;
    ctx.queuedMs += attempt.queuedMs;
    ctx.wireMs += attempt.wireMs;
  }

  /** The call's response for a 2xx answer; throws UpstreamError for any other. */
  function responseOf(ctx: CallContext, { status, headers, text }: RawAnswer): UpstreamResponse {
    const { req } = ctx;
    // Location is never read.
    if (status >= 300 && status < 400) throw failure(ctx, { kind: 'redirect', status });
    if (status >= 200 && status < 300) {
      const body = parseSuccessBody(ctx, status, headers['content-type'], text);
      return { status, body, durationMs: elapsed(ctx), attempts: ctx.attempt, text: req.keepText ? text : undefined };
    }
    // Only an error answer is shown to callers: its text is redacted (src/upstream/redact.ts) before anything holds it.
    const parsed = withinJsonValues(text, maxJsonValues) ? parseErrorBody(text, redactorFor(req.key)) : {};
    const retryAfterSeconds = parseRetryAfter(headers['retry-after']) ?? (status === 429 ? retryAfterFromDetail(parsed.detail) : undefined);
    throw failure(ctx, { kind: 'http', status, ...parsed, retryAfterSeconds });
  }

  function parseSuccessBody(ctx: CallContext, status: number, contentType: string | string[] | undefined, text: string): unknown {
    if (status === 204 || text.trim() === '') return undefined;
    const type = Array.isArray(contentType) ? contentType[0] : contentType;
    // An HTML error page from a proxy must not pass as data, even if it happened to parse.
    if (type !== undefined && !/json/i.test(type)) throw failure(ctx, { kind: 'malformed', status });
    // Too large, not malformed: what a record holds is its writers' doing, so no circuit counts it.
    if (!withinJsonValues(text, maxJsonValues)) throw failure(ctx, { kind: 'too-large', status });
    try {
      return JSON.parse(text);
    } catch {
      throw failure(ctx, { kind: 'malformed', status });
    }
  }

  function toUpstreamError(caught: unknown, ctx: CallContext): UpstreamError {
    if (caught instanceof UpstreamError) return caught;
    if (caught instanceof ResponseTooLargeError) return failure(ctx, { kind: 'too-large', status: caught.status });
    const abortKind = ctx.deadline.abortKind();
    if (abortKind) return failure(ctx, { kind: abortKind });
    // The bytes were not HTTP (undici leaves some of these without a code).
    if (caught instanceof Error && caught.name === 'HTTPParserError') return failure(ctx, { kind: 'malformed' });
    const code = errorCode(caught);
    if (code === undefined || PROGRAMMING_ERROR_CODES.has(code)) throw caught;
    return failure(ctx, { kind: 'network', networkCode: code });
  }

  function failure(ctx: CallContext, init: Omit<UpstreamErrorInit, 'method' | 'route'>): UpstreamError {
    return new UpstreamError({
      method: ctx.req.method,
      route: ctx.route,
      attempts: ctx.attempt,
      durationMs: elapsed(ctx),
      sent: ctx.sent,
      queuedMs: Math.round(ctx.queuedMs),
      wireMs: Math.round(ctx.wireMs),
      ownTimeout: init.kind === 'timeout' && ctx.deadline.cutByOwnTimeout(),
      ...init,
    });
  }

  return {
    request,
    async close() {
      await ownPool?.close();
    },
  };
}

function parseBaseUrl(baseUrl: string): Target {
  const url = new URL(baseUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('Upstream base URL must be http(s).');
  return { origin: url.origin, pathPrefix: url.pathname.replace(/\/+$/, '') };
}

/** Only these headers ever go upstream; nothing of the incoming request is copied. */
function outgoingHeaders(req: UpstreamRequest): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${req.key}`,
    accept: 'application/json',
    'user-agent': USER_AGENT,
  };
  if (req.body !== undefined) headers['content-type'] = 'application/json';
  // A request id is only for tracing: an unusable one is dropped rather than failing the call.
  if (req.requestId && req.requestId.length <= MAX_REQUEST_ID_LENGTH && HEADER_TOKEN.test(req.requestId)) {
    headers['x-request-id'] = req.requestId;
  }
  if (req.trace) {
    headers.traceparent = req.trace.traceparent;
    if (req.trace.tracestate) headers.tracestate = req.trace.tracestate;
  }
  return headers;
}

export function queryString(query: UpstreamRequest['query']): string {
  if (!query) return '';
  // Built by hand rather than with URLSearchParams: one string per call instead of an object and
  // its entries (every list call has `limit` and `offset`). encodeURIComponent escapes a superset
  // of what URLSearchParams does, so the upstream decodes the same values.
  let text = '';
  for (const name in query) {
    const value = query[name];
    if (value !== undefined) text += `${text ? '&' : '?'}${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`;
  }
  return text;
}

/** The code of a socket or undici error, also when Node wraps connection attempts in an AggregateError. */
function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors) && errors.length > 0) return errorCode(errors[0]);
  return cause === undefined ? undefined : errorCode(cause);
}

function elapsed(ctx: CallContext): number {
  return Math.round(performance.now() - ctx.startedAt);
}
