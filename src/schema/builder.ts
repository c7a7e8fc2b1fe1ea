// The SchemaBuilder and its plugin options. No types are defined here: each lives in its own file.
import SchemaBuilder, { type SchemaTypes } from '@pothos/core';
import DirectivesPlugin from '@pothos/plugin-directives';
import ErrorsPlugin from '@pothos/plugin-errors';
import FederationPlugin from '@pothos/plugin-federation';
import RelayPlugin from '@pothos/plugin-relay';
import type { GatewayContext } from '../context.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../loaders/page-size.ts';
import CostDirectivesPlugin from './cost-directives.ts';

export const builder = new SchemaBuilder<{
  Context: GatewayContext;
  Scalars: {
    ID: { Input: string; Output: string };
    UUID: { Input: string; Output: string };
    DateTime: { Input: string; Output: string };
    EmailAddress: { Input: string; Output: string };
    JSON: { Input: unknown; Output: unknown };
  };
  // The contract: data fields are nullable so an upstream null or failure nulls only that field.
  DefaultFieldNullability: true;
  DefaultEdgesNullability: { list: false; items: false };
  DefaultNodeNullability: false;
  Connection: { totalCount: number };
}>({
  // Federation last (it must see resolvers after the others wrap them); directives print its @key
  // and the cost directives, which follow from each field's fan-out once relay has made its fields.
  plugins: [ErrorsPlugin, RelayPlugin, CostDirectivesPlugin, DirectivesPlugin, FederationPlugin],
  relay: {
    clientMutationId: 'optional',
    cursorType: 'String',
    // node/nodes are our own fields (src/schema/node.ts): ids carry parent ids and bad ids are
    // BAD_USER_INPUT errors raised before any upstream call.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodesOnConnection: { description: 'The records of this page, without their cursors.' },
    nodeTypeOptions: {
      description: 'An object with an opaque global id that `Query.node` resolves.',
      // Records are tagged with their GraphQL type name when loaded (src/loaders/tagged-records.ts).
      resolveType: (record) => (record as { $type?: string }).$type,
    },
    pageInfoTypeOptions: { description: 'Where a page sits in its connection.' },
    idFieldOptions: { description: 'Opaque global id; `Query.node(id:)` resolves it.' },
    cursorFieldOptions: { description: 'Opaque cursor of this edge, for `after`/`before`.' },
    nodeFieldOptions: { description: 'The record at this edge.', nullable: false },
    edgesFieldOptions: { description: 'The records of this page with their cursors.', nullable: { list: false, items: false } },
    pageInfoFieldOptions: { description: 'Paging information for this page.' },
    hasNextPageFieldOptions: { description: 'Whether records follow this page.' },
    hasPreviousPageFieldOptions: { description: 'Whether records precede this page.' },
    startCursorFieldOptions: { description: 'Cursor of the first record of this page.' },
    endCursorFieldOptions: { description: 'Cursor of the last record of this page.' },
    firstArgOptions: {
      description: `Return the first N records (0-${MAX_PAGE_SIZE}; ${DEFAULT_PAGE_SIZE} when neither first nor last is given).`,
    },
    lastArgOptions: { description: `Return the last N records (0-${MAX_PAGE_SIZE}).` },
    afterArgOptions: { description: 'Return records after this cursor.' },
    beforeArgOptions: { description: 'Return records before this cursor.' },
    clientMutationIdInputOptions: { description: 'Echoed unchanged in the payload.' },
    clientMutationIdFieldOptions: { description: 'The `clientMutationId` of the input.' },
    mutationInputArgOptions: { description: 'The mutation input.' },
  },
  errors: { defaultTypes: [] },
});

/** The builder's schema types, for helpers that take Pothos' field builders and refs. */
export type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T extends SchemaTypes> ? T : never;

builder.globalConnectionField('totalCount', (t) =>
  t.exposeInt('totalCount', { nullable: false, description: 'How many records the whole list holds (the REST `count`).' }),
);
