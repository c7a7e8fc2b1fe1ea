// The REST interface's UUIDs (organizations, batch exports, domains, ...), in their dashed form:
// what the gateway accepts in global ids and representations, and checks in upstream answers.

const DASHED_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A dashed UUID, in either case (any version: the upstream's ids are not all v4). */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && DASHED_UUID.test(value);
}
