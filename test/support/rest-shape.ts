// What the gateway should answer for a REST record: keys camelCased per the contract, `id` as
// `databaseId`, free-form (JSON) values untouched.

/**
 * The contract's naming rule (contract: Naming): `created_at` -> `createdAt`, `enforce_2fa` ->
 * `enforce2fa`. Written here, apart from the schema, so the schema's literal field names are checked against it.
 */
const camelCase = (restName: string) => restName.replace(/_+([a-z0-9])/g, (_, next: string) => next.toUpperCase());

const JSON_FIELDS = new Set([
  'teams',
  'available_product_features',
  'metadata',
  'config',
  'schema',
  'hedgehog_config',
  'filters',
  'targeting_flag_filters',
  'questions',
  'conditions',
  'appearance',
  'config_schema',
  'capabilities',
  'metrics',
  'public_jobs',
  'private_project_access',
  'response_sampling_daily_limits',
  'feature_flag_keys',
]);

/** Fields whose GraphQL type coerces the REST value (seed: `member_count` is a string; the schema's Int). */
const COERCED: Record<string, (value: unknown) => unknown> = {
  member_count: (value) => (value === null ? null : Number(value)),
};

export function asGraphQL(rest: unknown): unknown {
  if (Array.isArray(rest)) return rest.map(asGraphQL);
  if (!rest || typeof rest !== 'object') return rest;
  return Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [
      key === 'id' ? 'databaseId' : camelCase(key),
      JSON_FIELDS.has(key) ? value : COERCED[key] ? COERCED[key](value) : asGraphQL(value),
    ]),
  );
}

/** Drops the gateway-only fields (global ids, connections, derived lists) before comparing. */
export function withoutKeys<T extends object>(value: T, keys: string[]): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key))) as Partial<T>;
}
