// The fan-out estimate (contract: Limits): how many upstream calls an operation can make, with its
// variables applied, before anything runs. A field that calls the upstream counts once per
// instance; an instance count is the product of the page sizes of the connections above it.
// Lookups by global id (`node`, `nodes`, `_entities`) count what each id really costs: a retrieve,
// a scan of its parent's list, or nothing, once per distinct call in the operation.
import {
  type DocumentNode,
  type FieldNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  getOperationAST,
  getVariableValues,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from 'graphql';
import { SETTINGS } from '../config/settings.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../loaders/page-size.ts';
import { fragmentsByName } from './selections.ts';

/**
 * How a schema field reaches the upstream, declared on the field as `extensions.fanOut`:
 * `call`: one call; `connection`: one call, and its children repeat once per record of the page;
 * `lookups`: the calls its arguments name, one per entry (null for an entry that makes none), its
 * children repeating once per entry (`node`, `nodes(ids:)`, `_entities(representations:)`).
 */
export type FanOut = 'call' | 'connection' | { lookups(args: Record<string, unknown>): readonly (LookupCall | null)[] };

/**
 * One upstream lookup: those with the same `key` are made once per request; a `scan` pages through
 * the parent's list (records without a REST retrieve) and may cost up to the scan bound.
 */
export interface LookupCall {
  key: string;
  scan: boolean;
}

interface EstimateOptions {
  /** What a scan can cost: MAX_LOOKUP_SCAN_PAGES. */
  maxLookupScanPages: number;
}

/** Mutation fields write and may re-read the record: two calls unless declared otherwise. */
const MUTATION_CALLS = 2;

/** The calls one instance of a field makes itself, lookups aside: 1 for a call or a connection, 2 for a mutation. */
function ownCalls(fanOut: FanOut | undefined, rootMutation: boolean): number {
  if (fanOut === 'call' || fanOut === 'connection') return 1;
  return fanOut === undefined && rootMutation ? MUTATION_CALLS : 0;
}

/** What one lookup costs: its retrieve, or a scan of up to `maxLookupScanPages` pages of its parent's list. */
const lookupCost = (lookup: LookupCall, maxLookupScanPages: number) => (lookup.scan ? maxLookupScanPages : 1);

/** The dearest lookup one id can name: an invite or a member, found by a scan. */
const SCANNING_LOOKUP: LookupCall = { key: 'scan', scan: true };

/**
 * The weights of a field's cost directives (contract: Cost directives), from the same rules as the
 * estimate: `weight` is the most one instance costs by itself (a lookup by id at worst a scan), and a
 * connection's `assumedSize` is the page size the estimate assumes when neither `first` nor `last` is
 * given. The schema is the same for every instance: a scan weighs the default MAX_LOOKUP_SCAN_PAGES.
 */
export function costWeightsOf(
  fanOut: FanOut | undefined,
  { rootMutation, maxLookupScanPages = SETTINGS.MAX_LOOKUP_SCAN_PAGES.default }: { rootMutation: boolean; maxLookupScanPages?: number },
): { weight: number; assumedSize?: number } {
  const weight = ownCalls(fanOut, rootMutation);
  if (fanOut === 'connection') return { weight, assumedSize: DEFAULT_PAGE_SIZE };
  if (typeof fanOut === 'object') return { weight: weight + lookupCost(SCANNING_LOOKUP, maxLookupScanPages) };
  return { weight };
}

/** What an operation can cost, with its variables applied. */
interface OperationEstimate {
  /** Upstream calls it can make. */
  calls: number;
  /** Ids and representations it looks up (`node`, `nodes(ids:)`, `_entities`), repeats included. */
  lookupIds: number;
  /**
   * Of those, the ones that make no upstream call of their own (a project, a malformed id, a
   * repeat): answered from the gateway alone, they are work all the same (admission weighs them).
   */
  localLookups: number;
}

const NOTHING: OperationEstimate = { calls: 0, lookupIds: 0, localLookups: 0 };

/** The upstream calls an operation can make (its estimate's `calls`). */
export function estimateUpstreamCalls(...args: Parameters<typeof estimateOperation>): number {
  return estimateOperation(...args).calls;
}

export function estimateOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: Record<string, unknown> | null | undefined,
  { maxLookupScanPages }: EstimateOptions,
): OperationEstimate {
  const operation = getOperationAST(document, operationName);
  if (!operation) return NOTHING;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables ?? {});
  // Bad variables fail execution before any resolver runs: nothing to estimate.
  if (coerced.errors) return NOTHING;
  const variables = coerced.coerced;
  const fragments = fragmentsByName(document);
  const rootType = schema.getRootType(operation.operation);
  if (!rootType) return NOTHING;
  // A lookup's call is the same wherever it appears (its arguments name it): count it once, outside
  // the per-instance walk. Lookup fields are root fields, so each field node is one list of ids (a
  // fragment spread twice at the root repeats the same response keys, which execute once).
  const lookupsCounted = new Set<string>();
  let lookupCalls = 0;
  let lookupIds = 0;
  let localLookups = 0;
  const countLookups = (lookups: readonly (LookupCall | null)[]) => {
    lookupIds += lookups.length;
    for (const lookup of lookups) {
      if (!lookup || lookupsCounted.has(lookup.key)) {
        localLookups += 1;
        continue;
      }
      lookupsCounted.add(lookup.key);
      lookupCalls += lookupCost(lookup, maxLookupScanPages);
    }
  };

  /** The calls one instance of a selection set makes, lookups aside. */
  const walk = (type: GraphQLCompositeType, set: SelectionSetNode, root: boolean): number => {
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : type;
        if (isCompositeType(condition)) total += walk(condition, selection.selectionSet, root);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        total += fragmentCalls(selection.name.value, root);
      } else {
        total += fieldCalls(type, selection, root);
      }
    }
    return total;
  };

  // Each fragment is walked once however often it is spread (its cost per instance is the same
  // everywhere), so a document cannot make this walk exponential.
  const fragmentCallsKnown = new Map<string, number>();
  const fragmentCalls = (name: string, root: boolean): number => {
    const key = root ? `root:${name}` : name;
    let calls = fragmentCallsKnown.get(key);
    if (calls === undefined) {
      const fragment = fragments.get(name);
      const condition = fragment && schema.getType(fragment.typeCondition.name.value);
      calls = fragment && isCompositeType(condition) ? walk(condition, fragment.selectionSet, root) : 0;
      fragmentCallsKnown.set(key, calls);
    }
    return calls;
  };

  const fieldCalls = (parent: GraphQLCompositeType, node: FieldNode, root: boolean): number => {
    if (!isObjectType(parent) && !isInterfaceType(parent)) return 0;
    const field = parent.getFields()[node.name.value];
    if (!field) return 0;
    const { own, perInstance, lookups } = costOf(field, node, variables, root && operation.operation === 'mutation');
    if (lookups) countLookups(lookups);
    const childType = getNamedType(field.type);
    const below = node.selectionSet && isCompositeType(childType) ? walk(childType, node.selectionSet, false) : 0;
    return own + perInstance * below;
  };

  const calls = walk(rootType, operation.selectionSet, true);
  return { calls: calls + lookupCalls, lookupIds, localLookups };
}

interface FieldCost {
  own: number;
  perInstance: number;
  lookups?: readonly (LookupCall | null)[];
}

function costOf(
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Record<string, unknown>,
  isMutation: boolean,
): FieldCost {
  const fanOut = field.extensions?.fanOut as FanOut | undefined;
  const own = ownCalls(fanOut, isMutation);
  if (fanOut === undefined || fanOut === 'call') return { own, perInstance: 1 };
  const args = argumentsOf(field, node, variables);
  if (fanOut === 'connection') return { own, perInstance: pageSize(args) };
  const lookups = fanOut.lookups(args);
  return { own, perInstance: lookups.length, lookups };
}

function argumentsOf(field: GraphQLField<unknown, unknown>, node: FieldNode, variables: Record<string, unknown>) {
  try {
    return getArgumentValues(field, node, variables);
  } catch {
    return {}; // execution reports the bad argument itself
  }
}

function pageSize(args: Record<string, unknown>): number {
  const size = typeof args.first === 'number' ? args.first : typeof args.last === 'number' ? args.last : DEFAULT_PAGE_SIZE;
  return Math.max(0, Math.min(MAX_PAGE_SIZE, size));
}
