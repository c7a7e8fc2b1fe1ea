// The last word on a request the pipeline failed. Yoga masks what fails inside GraphQL execution, but
// an error thrown by a plugin's hook (GraphiQL's page and files, /health, /readiness, /metrics, the
// 404 of an unknown path, a body that cannot be decoded) leaves Yoga, and its server adapter would
// answer it with the error's stack, file paths included, as the body. Here the caller gets a generic
// 500 with the request id, and the log the error with its stack.
import type { RequestListener } from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import type { YogaServerInstance } from 'graphql-yoga';
import { unexpectedError } from '../errors/graphql-errors.ts';
import type { Logger } from '../observability/logger.ts';

interface ErrorBoundaryOptions {
  logger: Logger;
  /** The request's id: the one its arrival was given, or a new one if it failed before arriving. */
  requestIdOf(request: Request): string;
  /** The CORS headers of an answer to this request (a page on another origin can read the id); null without an `Origin`. */
  corsHeaders(request: Pick<Request, 'headers'>): Record<string, string> | null;
}

// biome-ignore lint/suspicious/noExplicitAny: the boundary takes any Yoga, whatever its contexts
export function errorBoundary(yoga: YogaServerInstance<any, any>, options: ErrorBoundaryOptions): RequestListener {
  const { Response } = yoga.fetchAPI;
  const failed = (request: Request, error: unknown) => {
    const requestId = options.requestIdOf(request);
    const { pathname } = new URL(request.url, 'http://localhost');
    options.logger.error(
      { err: error, requestId, method: request.method, path: pathname },
      'a request failed outside GraphQL execution: answered 500 "Unexpected error."',
    );
    const { message, extensions } = unexpectedError();
    return Response.json(
      { errors: [{ message, extensions: { ...extensions, requestId } }] },
      { status: 500, headers: { ...options.corsHeaders(request), 'x-request-id': requestId, 'cache-control': 'no-store' } },
    );
  };
  const adapter = createServerAdapter<Record<string, unknown>>(
    async (request, serverContext) => {
      try {
        return await yoga.handleRequest(request, serverContext);
      } catch (error) {
        return failed(request, error);
      }
    },
    { fetchAPI: yoga.fetchAPI },
  );
  return adapter.requestListener;
}
