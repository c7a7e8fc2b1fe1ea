// Yoga's own logging goes to the pino logger instead of the console. Yoga logs every error it masks;
// here only unexpected ones (those callers see as "Unexpected error.") are errors, with the original
// error and its stack. Upstream failures already reach the caller with a contract code and show up
// in the request line, so they are debug detail.
import { GraphQLError } from 'graphql';
import type { YogaLogger } from 'graphql-yoga';
import { toGraphQLError } from '../errors/graphql-errors.ts';
import type { Logger } from './logger.ts';

export function yogaLogger(logger: Logger, alreadyLogged: WeakSet<Error>): YogaLogger {
  const forward =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) => {
      const error = args.find((arg): arg is Error => arg instanceof Error);
      const message = args.filter((arg) => typeof arg === 'string').join(' ');
      if (!error) return logger[level](message || 'graphql-yoga');
      const original = error instanceof GraphQLError && error.originalError ? error.originalError : error;
      const path = error instanceof GraphQLError ? error.path?.join('.') : undefined;
      if (level === 'error' && (isExpected(original) || alreadyLogged.has(original))) {
        logger.debug({ err: original, path }, 'upstream failure returned to the caller');
      } else if (level === 'error') {
        // Once: Yoga may report a failure of a request it could not parse twice.
        alreadyLogged.add(original);
        logger.error({ err: original, path }, 'unexpected error (the caller saw "Unexpected error.")');
      } else {
        logger[level]({ err: original, path }, message || original.message);
      }
    };
  return { debug: forward('debug'), info: forward('info'), warn: forward('warn'), error: forward('error') };
}

/** Errors that become a contract code (UpstreamError, bad path segments, ...), as opposed to bugs. */
export function isExpected(error: Error): boolean {
  return toGraphQLError(error).extensions.code !== 'INTERNAL_SERVER_ERROR';
}
