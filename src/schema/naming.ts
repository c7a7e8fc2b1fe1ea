/**
 * The contract's camelCase of a REST field: `created_at` -> `createdAt`; a letter after a digit stays
 * lower case (`enforce_2fa` -> `enforce2fa`, `is_2fa_enabled` -> `is2faEnabled`).
 */
export function camelCase(restName: string): string {
  return restName.replace(/_+([a-z0-9])/g, (_, next: string) => next.toUpperCase());
}

/** "Requires scope `x`." — named on every field that calls the upstream, so GraphiQL shows it. */
export function requiresScope(scope: string): string {
  return `Requires scope \`${scope}\`.`;
}
