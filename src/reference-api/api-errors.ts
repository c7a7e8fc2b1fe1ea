// The live service's error bodies (drf-exceptions-hog): one error, `{type, code, detail, attr}`.
import type { RestErrorBody } from '../wire/rest-types.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: RestErrorBody,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.detail);
  }
}

export function validationError(code: string, detail: string, attr: string | null = null): ApiError {
  return new ApiError(400, { type: 'validation_error', code, detail, attr });
}

export function notFound(): ApiError {
  return new ApiError(404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
}

export function notAuthenticated(): ApiError {
  return new ApiError(
    401,
    { type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null },
    { 'www-authenticate': 'Bearer realm="api"' },
  );
}

export function authenticationFailed(): ApiError {
  return new ApiError(
    401,
    {
      type: 'authentication_error',
      code: 'authentication_failed',
      detail: 'Personal API key found in request Authorization header is invalid.',
      attr: null,
    },
    { 'www-authenticate': 'Bearer realm="api"' },
  );
}

export function permissionDenied(detail: string): ApiError {
  return new ApiError(403, { type: 'authentication_error', code: 'permission_denied', detail, attr: null });
}

export function methodNotAllowed(method: string, allowed: string[]): ApiError {
  return new ApiError(
    405,
    { type: 'invalid_request', code: 'method_not_allowed', detail: `Method "${method}" not allowed.`, attr: null },
    { allow: allowed.join(', ') },
  );
}

/** The brief asks for `validation_error` here (drf-exceptions-hog itself would say `invalid_request`). */
export function parseError(message: string): ApiError {
  return validationError('parse_error', `JSON parse error - ${message}`);
}

export function serverError(): ApiError {
  return new ApiError(500, { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null });
}
