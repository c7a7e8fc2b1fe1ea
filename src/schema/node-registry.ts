// How each Node type is fetched again from its global id: used by `node`, `nodes`, mutations that
// take global ids, and federation's `_entities`.
import type { GatewayContext } from '../context.ts';
import { checkParts, decodeId, type IdPart } from './global-id.ts';
import { gatewayError } from '../errors.ts';

export interface NodeLoader {
  shape: readonly IdPart[];
  load(parts: string[], context: GatewayContext): Promise<unknown> | unknown;
}

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
    throw gatewayError('BAD_USER_INPUT', `\`${argName}\` must be the id of a ${expected.join(' or ')}, not a ${decoded.typename}.`, {
      argumentName: argName,
    });
  }
  return { typename: decoded.typename, parts: checkParts(decoded, loader.shape, argName), loader };
}

export function loadNode(parsed: ReturnType<typeof parseNodeId>, context: GatewayContext) {
  return parsed.loader.load(parsed.parts, context);
}
