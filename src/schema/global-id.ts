// Global ids: `base64("<Type>:<part>:<part>...")`, where the parts are the REST ids needed to fetch
// the record again (the parent organization or project first). Parts are URI-encoded, so `:`
// inside a part cannot shift the others.
import { gatewayError } from '../errors/graphql-errors.ts';
import { isUuid } from '../wire/uuid.ts';

export type IdPart = 'uuid' | 'int' | 'project';

const INT_PATTERN = /^(0|[1-9]\d{0,15})$/;
/** A project id: digits, as the upstream's `/api/projects/:project_id/` takes them, or its `@current`. */
const PROJECT_ID_PATTERN = /^(\d{1,20}|@current)$/;

const PART_CHECKS: Record<IdPart, (value: string) => boolean> = {
  uuid: isUuid,
  int: (value) => INT_PATTERN.test(value),
  project: (value) => PROJECT_ID_PATTERN.test(value),
};

/**
 * The longest global id any type's parts can make (a BatchExportRun's three UUIDs are 168
 * characters), with room to spare. A longer one is refused before it is decoded: `node`, `nodes` and
 * `_entities` would otherwise decode, and echo back, an id of any length for nothing.
 */
const MAX_GLOBAL_ID_LENGTH = 256;

/** Whether `value` can be a global id's part of this kind (`node(id:)` refuses the others). */
export function isIdPart(kind: IdPart, value: string): boolean {
  return PART_CHECKS[kind](value);
}

/** UUIDs and integers, nearly every part, need no escaping: skip encodeURIComponent's copy for them. */
const PLAIN_PART = /^[\w.-]*$/;
function encodePart(part: string | number): string {
  if (typeof part === 'number') return String(part);
  return PLAIN_PART.test(part) ? part : encodeURIComponent(part);
}

export function globalId(typename: string, ...parts: (string | number)[]): string {
  return globalIdOf(typename, parts);
}

/**
 * The same as `globalId`, from an array: a list page computes one per record, so this builds the
 * string in one pass. Every part is ASCII once encoded, so `btoa` (cheaper than a Buffer round trip)
 * gives what the relay plugin's `encodeGlobalID` gives: base64 of `<Type>:<id>` in UTF-8.
 */
export function globalIdOf(typename: string, parts: readonly (string | number)[]): string {
  let raw = typename;
  for (const part of parts) raw += `:${encodePart(part)}`;
  return btoa(raw);
}

interface DecodedId {
  typename: string;
  parts: string[];
}

/** Decodes without checking the parts; BAD_USER_INPUT when it is not a global id at all. */
export function decodeId(id: string, argName = 'id'): DecodedId {
  const decoded = id.length <= MAX_GLOBAL_ID_LENGTH && /^[A-Za-z0-9+/=_-]+$/.test(id) ? Buffer.from(id, 'base64').toString('utf8') : '';
  const match = /^([A-Z][A-Za-z]+):(.+)$/s.exec(decoded);
  if (!match) throw malformed(argName);
  try {
    return { typename: match[1] as string, parts: (match[2] as string).split(':').map(decodeURIComponent) };
  } catch {
    throw malformed(argName);
  }
}

/**
 * Checks a decoded id's parts against the shape its type expects. UUIDs come back in lower case, as
 * the upstream's paths have them (as the UUID scalar gives them), so either case names one record.
 */
export function checkParts(decoded: DecodedId, shape: readonly IdPart[], argName = 'id'): string[] {
  const { parts } = decoded;
  if (parts.length !== shape.length || !parts.every((part, i) => PART_CHECKS[shape[i] as IdPart](part))) {
    throw malformed(argName);
  }
  return shape.includes('uuid') ? parts.map((part, i) => (shape[i] === 'uuid' ? part.toLowerCase() : part)) : parts;
}

function malformed(argName: string) {
  return gatewayError('BAD_USER_INPUT', `\`${argName}\` is not a valid global id.`, { argumentName: argName });
}
