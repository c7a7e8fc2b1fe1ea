// Query.node and Query.nodes over the node registry: ids are checked before the operation runs
// (src/schema/argument-checks.ts), and a record the upstream does not have is null.

import type { FanOut } from '../limits/fan-out.ts';
import type { ArgumentCheck } from './argument-checks.ts';
import { builder } from './builder.ts';
import { loadNode, lookupCallOf, parseNodeId } from './node-registry.ts';

/** The scope of each type's retrieve (the `READ` of each type's module). */
const SCOPE_BY_TYPE =
  'Requires scope `organization:read` for an Organization or a Domain, `batch_export:read` for a BatchExport or a BatchExportRun, ' +
  '`organization_member:read` for an Invite or a Member, `plugin:read` for a pipeline item and `survey:read` for a Survey (a Project makes no call).';

builder.queryFields((t) => ({
  node: t.field({
    type: builder.nodeInterfaceRef(),
    description: `The record with this global id, or null when the upstream does not have it. ${SCOPE_BY_TYPE}`,
    extensions: {
      fanOut: { lookups: ({ id }) => [lookupCallOf(id)] } satisfies FanOut,
      checkArguments: (({ id }) => void parseNodeId(String(id))) satisfies ArgumentCheck,
    },
    args: { id: t.arg.id({ required: true, description: 'A global id from any `id` field.' }) },
    resolve: (_root, { id }, context) => loadNode(parseNodeId(String(id)), context) as never,
  }),
  nodes: t.field({
    type: [builder.nodeInterfaceRef()],
    nullable: { list: false, items: true },
    description: `The records with these global ids, in order; null for each the upstream does not have. ${SCOPE_BY_TYPE}`,
    extensions: {
      fanOut: { lookups: ({ ids }) => (Array.isArray(ids) ? ids.map((id) => lookupCallOf(id)) : []) } satisfies FanOut,
      checkArguments: (({ ids }) => void parsedIds(ids as readonly unknown[])) satisfies ArgumentCheck,
    },
    args: { ids: t.arg.idList({ required: true, description: 'Global ids from `id` fields.' }) },
    resolve: (_root, { ids }, context) => parsedIds(ids).map((p) => loadNode(p, context)) as never,
  }),
}));

/** Every id is parsed first, so one malformed id fails the field with no upstream call. */
const parsedIds = (ids: readonly unknown[]) => ids.map((id, i) => parseNodeId(String(id), `ids[${i}]`));
