// How each Node type is fetched again from its global id: used by `node`, `nodes`, mutations that
// take global ids, and federation's `_entities`.
import type { GatewayContext } from '../context.ts';
import { gatewayError } from '../errors/graphql-errors.ts';
import type { LookupCall } from '../limits/fan-out.ts';
import { checkParts, decodeId, type IdPart } from './global-id.ts';

interface NodeLoader {
  shape: readonly IdPart[];
  /** The upstream call `load` makes, for the fan-out estimate; null when it makes none. */
  call(parts: string[]): LookupCall | null;
  load(parts: string[], context: GatewayContext): Promise<unknown> | unknown;
}

/** A record's REST retrieve: one call per distinct record. */
export const retrieveCall = (...ids: string[]): LookupCall => ({ key: ids.join(':'), scan: false });
/** A scan of an organization's list (no REST retrieve): one per list, for all of its records looked up. */
export const scanCall = (list: string, orgId: string): LookupCall => ({ key: `${list}:${orgId}`, scan: true });

const loaders = new Map<string, NodeLoader>();

export function registerNode(typename: string, loader: NodeLoader): void {
  loaders.set(typename, loader);
}

/** Decodes and checks a global id (BAD_USER_INPUT, no upstream call, when it is not one of ours). */
export function parseNodeId(id: string, argName = 'id', expected?: readonly string[]) {
  const decoded = decodeId(id, argName);
  const loader = loaders.get(decoded.typename);
  if (!loader) throw gatewayError('BAD_USER_INPUT', `\`${argName}\` is not a valid global id.`, { argumentName: argName });
  if (expected && !expected.includes(decoded.typename)) {
    const wanted = expected.map(withArticle).join(' or ');
    throw gatewayError('BAD_USER_INPUT', `\`${argName}\` must be the id of ${wanted}, not ${withArticle(decoded.typename)}.`, {
      argumentName: argName,
    });
  }
  return { typename: decoded.typename, parts: checkParts(decoded, loader.shape, argName), loader };
}

/** "an Organization", "a Domain": every type name is an English noun, read as written. */
const withArticle = (typename: string) => `${/^[AEIOU]/.test(typename) ? 'an' : 'a'} ${typename}`;

/**
 * The upstream call looking up this global id makes (of `typename` when given), for the fan-out
 * estimate; null when it makes none; `malformed` when the id is malformed (refused before any call).
 */
export function lookupCallOf(id: unknown, typename?: string, malformed: LookupCall | null = null): LookupCall | null {
  try {
    const { parts, loader } = parseNodeId(String(id), 'id', typename === undefined ? undefined : [typename]);
    return loader.call(parts);
  } catch {
    return malformed;
  }
}

export function loadNode(parsed: ReturnType<typeof parseNodeId>, context: GatewayContext) {
  return parsed.loader.load(parsed.parts, context);
}

/** The REST ids a mutation input's global id carries; BAD_USER_INPUT (no upstream call) when it is not an id of `typename`. */
export function inputIdParts(id: string | number, inputField: string, typename: string): string[] {
  return parseNodeId(String(id), `input.${inputField}`, [typename]).parts;
}
