// Errors as data (contract: Errors): an upstream 400 becomes a ValidationError and a 404 a
// NotFoundError in the mutation's result union; every other failure stays a GraphQL error.
import { UpstreamError } from '../../upstream/upstream-error.ts';
import { builder } from '../builder.ts';

/** The upstream rejected a value of the input (REST 400). */
export class ValidationError extends Error {
  override readonly name = 'ValidationError';
  constructor(
    message: string,
    readonly field: string | null,
    readonly code: string | null,
  ) {
    super(message);
  }
}

/** The record, or the organization or project it lives in, does not exist for this key (REST 404). */
export class NotFoundError extends Error {
  override readonly name = 'NotFoundError';
}

builder.objectType(ValidationError, {
  name: 'ValidationError',
  description: 'The upstream rejected the input (REST 400). Fix the named field and try again.',
  fields: (t) => ({
    message: t.exposeString('message', { nullable: false, description: "The upstream's explanation (its `detail`)." }),
    field: t.exposeString('field', {
      description:
        'The input field at fault: the camelCase of the REST `attr` (nested REST attrs `a__b` become `a.b`); null when the whole input is at fault.',
    }),
    code: t.exposeString('code', { description: 'The REST error `code` as sent, e.g. `required`, `blank`, `invalid_choice`, `unique`.' }),
  }),
});

builder.objectType(NotFoundError, {
  name: 'NotFoundError',
  description: 'The record the input names, or its organization or project, does not exist or is not visible to this key (REST 404).',
  fields: (t) => ({
    message: t.exposeString('message', { nullable: false, description: 'What was not found.' }),
  }),
});

/**
 * The contract's camelCase of a REST field: `created_at` -> `createdAt`; a letter after a digit stays
 * lower case (`enforce_2fa` -> `enforce2fa`, `is_2fa_enabled` -> `is2faEnabled`).
 */
function camelCase(restName: string): string {
  return restName.replace(/_+([a-z0-9])/g, (_, next: string) => next.toUpperCase());
}

/** The REST `attr` as an input path: `target_email` -> `targetEmail`, `destination__type` -> `destination.type`. */
function inputFieldOf(attr: string | null | undefined): string | null {
  return attr ? attr.split('__').map(camelCase).join('.') : null;
}

/**
 * The error-union member for an upstream 400 (and 404 when the mutation has NotFoundError, i.e. a
 * message for it), else the
 * error unchanged, so the gateway's masking turns it into its GraphQL error.
 */
export function asMutationError(error: unknown, notFoundMessage: string | null): unknown {
  if (!(error instanceof UpstreamError) || error.kind !== 'http') return error;
  if (error.status === 400) {
    // The transport redacted these texts; an empty one is text it could not keep.
    return new ValidationError(
      error.body?.detail || error.detail || 'The upstream service rejected the input.',
      inputFieldOf(error.body?.attr),
      error.body?.code || null,
    );
  }
  if (error.status === 404 && notFoundMessage !== null) return new NotFoundError(notFoundMessage);
  return error;
}
