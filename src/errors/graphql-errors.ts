// Where failures become the GraphQL errors callers see (contract: Errors), and the codes they carry.
// Only a GraphQLError without an originalError survives graphql-yoga's masking, so none is attached
// here: log the original before converting if you need it. Two leaves of the import map build their
// own (they may import nothing): src/errors/protocol-errors.ts (BAD_REQUEST) and src/persisted (the
// PERSISTED_QUERY_* codes), with Yoga's own words.
import { type ASTNode, GraphQLError } from 'graphql';
import { InvalidPathSegmentError } from '../upstream/paths.ts';
import { CallBudgetExceededError, InvalidKeyError, UpstreamError } from '../upstream/upstream-error.ts';

type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'RATE_LIMITED'
  | 'UPSTREAM_ERROR'
  | 'UPSTREAM_TIMEOUT'
  | 'BAD_USER_INPUT'
  | 'QUERY_TOO_COMPLEX'
  | 'IDEMPOTENCY_CONFLICT'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENCY_UNAVAILABLE'
  | 'OVERLOADED'
  | 'INTERNAL_SERVER_ERROR';

/** A caller-facing error; `code` always wins over a same-named extension. `nodes` locate it in the operation. */
export function gatewayError(
  code: ErrorCode,
  message: string,
  extensions?: Record<string, unknown>,
  nodes?: ASTNode | readonly ASTNode[],
): GraphQLError {
  return new GraphQLError(message, { nodes, extensions: { ...extensions, code } });
}

/** OVERLOADED's message: admission's refusal (src/limits/admission-plugin.ts) and a connection past MAX_CONNECTIONS (src/http/over-capacity.ts). */
export function overloadedMessage(retryAfterSeconds: number): string {
  return `This gateway is at capacity. Retry after ${retryAfterSeconds} ${retryAfterSeconds === 1 ? 'second' : 'seconds'}.`;
}

/**
 * The message of every upstream value a field's type cannot represent (src/schema/leaf-serializers.ts):
 * graphql-jit reports a serializer's failure with its message alone.
 */
export const UNREPRESENTABLE_VALUE = 'The upstream service sent a value this field cannot represent.';

export function toGraphQLError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) {
    if (!madeByExecutor(error)) return error;
    if (error.message === UNREPRESENTABLE_VALUE) return gatewayError('UPSTREAM_ERROR', UNREPRESENTABLE_VALUE);
  }
  if (error instanceof UpstreamError) return fromUpstream(error);
  if (error instanceof InvalidPathSegmentError) return gatewayError('BAD_USER_INPUT', error.message);
  if (error instanceof InvalidKeyError) return gatewayError('UNAUTHENTICATED', error.message);
  if (error instanceof CallBudgetExceededError) return gatewayError('QUERY_TOO_COMPLEX', error.message, { budget: error.budget });
  return unexpectedError();
}

/** What a caller sees of a defect: nothing of it (the log has it). */
export const unexpectedError = () => gatewayError('INTERNAL_SERVER_ERROR', 'Unexpected error.');

/**
 * An error graphql-jit made itself while completing a field: it has a path, but neither a code nor
 * an original error (nor, from graphql-jit, any `extensions`). A serializer's refusal is an upstream
 * value; anything else (a null for a non-null field, ...) is unexpected, since the answer checks
 * (src/upstream/answer-shapes.ts) guarantee what the schema relies on.
 */
function madeByExecutor(error: GraphQLError): boolean {
  const extensions = error.extensions as GraphQLError['extensions'] | undefined;
  return error.path !== undefined && error.originalError == null && extensions?.code === undefined;
}

/** An upstream 404: lookups turn it into `null` instead of an error. */
export function isNotFound(error: unknown): boolean {
  return error instanceof UpstreamError && error.kind === 'http' && error.status === 404;
}

function fromUpstream(error: UpstreamError): GraphQLError {
  const [code, message] = describeUpstream(error);
  const extensions: Record<string, unknown> = {};
  if (error.status !== undefined) extensions.upstreamStatus = error.status;
  if (code === 'RATE_LIMITED' && error.retryAfterSeconds !== undefined) extensions.retryAfter = error.retryAfterSeconds;
  return gatewayError(code, message, extensions);
}

/**
 * Messages are fixed text, except the upstream's own `detail` where it tells the caller what to fix
 * (already redacted by the transport; empty when nothing of it could be kept).
 */
function describeUpstream(error: UpstreamError): [ErrorCode, string] {
  switch (error.kind) {
    case 'timeout':
      return ['UPSTREAM_TIMEOUT', 'The upstream service did not answer in time.'];
    case 'network':
      return ['UPSTREAM_ERROR', 'The upstream service could not be reached.'];
    case 'malformed':
      return ['UPSTREAM_ERROR', 'The upstream service sent a malformed response.'];
    case 'too-large':
      return ['UPSTREAM_ERROR', 'The upstream service sent a response larger than the gateway accepts.'];
    case 'redirect':
      return ['UPSTREAM_ERROR', 'The upstream service answered with a redirect, which the gateway does not follow.'];
    case 'aborted':
      return ['UPSTREAM_ERROR', 'The upstream call was aborted.'];
    case 'circuit-open':
      return ['UPSTREAM_ERROR', 'The upstream service is failing; calls are paused for a moment. Retry later.'];
    case 'http':
      return describeStatus(error);
  }
}

function describeStatus({ status = 0, detail, retryAfterSeconds }: UpstreamError): [ErrorCode, string] {
  if (status === 401) return ['UNAUTHENTICATED', 'The upstream service rejected the API key.'];
  // The live service's 403 detail names the missing scope, e.g. "API key missing required scope 'organization:read'".
  if (status === 403) return ['FORBIDDEN', detail || 'The API key is not allowed to do this.'];
  if (status === 404) return ['NOT_FOUND', 'Not found.'];
  if (status === 429) {
    const when =
      retryAfterSeconds === undefined ? '' : ` Retry after ${retryAfterSeconds} ${retryAfterSeconds === 1 ? 'second' : 'seconds'}.`;
    return ['RATE_LIMITED', `The upstream service is rate limiting this key.${when}`];
  }
  // 400/422: the upstream rejected values that came from the caller's arguments; mutations turn
  // a 400 into ValidationError data before it gets here, so only their 422s arrive.
  if (status === 400 || status === 422) return ['BAD_USER_INPUT', detail || 'The upstream service rejected the request.'];
  return ['UPSTREAM_ERROR', `The upstream service failed (HTTP ${status}).`];
}
