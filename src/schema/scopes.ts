// The scope sentence of every field and mutation that calls the upstream (contract: Documentation in the schema).
/** "Requires scope `x`." — named on every field that calls the upstream, so GraphiQL shows it. */
export function requiresScope(scope: string): string {
  return `Requires scope \`${scope}\`.`;
}
