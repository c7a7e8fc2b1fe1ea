// A request the GraphQL layer cannot run is the caller's error, with a code: parameters that are
// not what GraphQL over HTTP says (BAD_REQUEST, HTTP 400) and variables that do not fit their types
// (BAD_USER_INPUT). Without this, Yoga masked the first as INTERNAL_SERVER_ERROR and the second
// carried no code at all. (Every operation type has its root type now, Subscription included.)
import { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

const badRequest = (message: string) => new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });

/**
 * Yoga's GET and form parsers JSON.parse `variables` and `extensions` as they are, so bad JSON
 * threw a SyntaxError that was masked as INTERNAL_SERVER_ERROR; a parse error without a code (the
 * body limit's) gets Yoga's own BAD_REQUEST. `operationName` must be a string when given (Yoga
 * checks `query`, `variables` and `extensions` itself). Any other failure (the body's stream broke
 * while it was read) is not the caller's: it stays unexpected, masked and logged with its stack.
 */
function malformedParametersPlugin(): Plugin {
  const asBadRequest = (error: unknown): never => {
    if (isParseFailure(error)) throw badRequest('The `variables` and `extensions` parameters must be JSON objects.');
    if (!(error instanceof GraphQLError)) throw error;
    // Yoga says "POST body sent invalid JSON." of a body it could not read at all too, keeping only
    // the name and message of what failed.
    const cause = error.extensions.originalError as { name?: string; message?: string } | undefined;
    if (cause && !PARSE_FAILURES.includes(cause.name ?? '')) {
      throw new Error(`The request body could not be read: ${cause.name}: ${cause.message}`);
    }
    error.extensions.code ??= 'BAD_REQUEST';
    throw error;
  };
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (!requestParser) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          return asBadRequest(error);
        }
      });
    },
    onParams({ params }) {
      if (params.operationName != null && typeof params.operationName !== 'string') {
        throw badRequest('Expected "operationName" param to be a string.');
      }
    },
  };
}

/**
 * A result without `data` is a request error raised before execution began: after validation,
 * that is a variable that does not fit its type. graphql-jit reports those without a code and
 * keeps a scalar's own message (e.g. the JSON scalar's) in originalError, where masking would hide it.
 */
function variableErrorsPlugin(): Plugin {
  const asBadUserInput = (error: GraphQLError) => {
    // graphql-jit's errors may have no `extensions` at all, and keep their `locations` without `nodes`.
    if (error.extensions?.code !== undefined) return error;
    const original = error.originalError instanceof GraphQLError ? error.originalError : undefined;
    const message = original ? `${error.message} ${original.message}` : error.message;
    // As for validation errors: 400 for application/graphql-response+json, 200 for application/json.
    const extensions = { ...original?.extensions, code: 'BAD_USER_INPUT', http: { spec: true, status: 400 } };
    return Object.assign(new GraphQLError(message, { extensions }), { locations: error.locations });
  };
  return {
    onExecute() {
      return {
        onExecuteDone({ result, setResult }) {
          if (isAsyncIterable(result) || 'data' in result || !result.errors) return;
          setResult({ ...result, errors: result.errors.map(asBadUserInput) });
        },
      };
    },
  };
}

/**
 * An `Accept` header that allows none of the media types an answer can take (`application/json` for a
 * subscription, which only streams) is answered 406; Yoga's own 406 has an empty body, so this one
 * names the types it can take, in the body and in an `Accept` header. A subscription's stream was
 * opened before the answer was chosen, and Yoga drops it without ending it, which would keep its
 * poll and its place in the limits for ever: it is ended here.
 */
function notAcceptablePlugin(): Plugin {
  return {
    onResultProcess({ result, resultProcessor, acceptableMediaTypes, setResultProcessor }) {
      if (resultProcessor) return;
      if (isAsyncIterable(result)) void result[Symbol.asyncIterator]().return?.();
      const accept = [...new Set(acceptableMediaTypes)];
      const error = {
        message: `The Accept header allows none of the media types this answer can take: ${accept.join(', ')}.`,
        extensions: { code: 'BAD_REQUEST', accept },
      };
      setResultProcessor(
        (_result, fetchAPI) => fetchAPI.Response.json({ errors: [error] }, { status: 406, headers: { accept: accept.join(', ') } }),
        'application/json',
      );
    },
  };
}

/** What JSON.parse, URL decoding and form parsing throw of malformed input (by class, or by name where Yoga kept only that). */
const PARSE_FAILURES = ['SyntaxError', 'TypeError', 'URIError'];
const isParseFailure = (error: unknown) => error instanceof Error && PARSE_FAILURES.includes(error.name);

export function protocolErrorPlugins(): Plugin[] {
  return [malformedParametersPlugin(), variableErrorsPlugin(), notAcceptablePlugin()];
}
