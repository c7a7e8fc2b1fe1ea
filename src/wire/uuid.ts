// The REST interface's UUIDs (organizations, batch exports, domains, ...), in their dashed form:
// what the gateway accepts in global ids and representations, and checks in upstream answers.

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A dashed UUID, in either case. */
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_PATTERN.test(value);
