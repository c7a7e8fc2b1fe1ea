// The fields a parent gets for one of its REST lists: a Relay connection (`batchExports`) whose pages
// become `limit`/`offset` calls (src/schema/connection.ts), and, where REST has a retrieve, a lookup
// by REST id (`batchExport`). Both go through the request's loaders. Also the named Connection and
// Edge types each connection returns.
import type { ObjectRef } from '@pothos/core';
import type { GatewayContext } from '../context.ts';
import type { ResourceLoader } from '../loaders/resource-loader.ts';
import { type BuilderTypes, builder } from './builder.ts';
import { resolveRestConnection } from './connection.ts';

type Ref<R> = ObjectRef<BuilderTypes, R>;

/** `BatchExportConnection` and `BatchExportEdge` for `BatchExport`; `what` is the plural noun of descriptions. */
export function connectionTypes<R>(ref: Ref<R>, names: { connection: string; edge: string; what: string }) {
  return builder.connectionObject(
    { type: ref, name: names.connection, description: `A page of ${names.what}, with the total count of the list.` },
    { name: names.edge, description: `One of ${names.what}, with its cursor.` },
  );
}

interface RestListOptions<Parent, R> {
  type: Ref<R>;
  connection: ReturnType<typeof connectionTypes<R>>;
  /** For descriptions: the parent's noun, the plural noun of the records, the scope sentence. */
  parentNoun: 'organization' | 'project';
  what: string;
  scope: string;
  /** The organization or project id the REST list lives under. */
  parentId(parent: Parent): string;
  loader(context: GatewayContext): Pick<ResourceLoader<unknown, R>, 'page' | 'count' | 'byId'>;
}

/**
 * The connection and the lookup of one REST list under `Parent`, for the parent's type file to place
 * under their GraphQL names (`batchExports: exports.connection(), batchExport: exports.lookup('UUID')`).
 */
export function restListFields<Parent, R>(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Parent>,
  options: RestListOptions<Parent, R>,
) {
  const { type, parentNoun, what, scope, parentId, loader } = options;
  return {
    /** Its cursors name the field and the parent id (`batchExports:<organization id>`), so a cursor of another list is refused. */
    connection: () =>
      t.connection(
        {
          type,
          description: `The ${parentNoun}'s ${what}. ${scope}`,
          extensions: { fanOut: 'connection' },
          resolve: (parent, args, context, info) => {
            const id = parentId(parent);
            const list = loader(context);
            return resolveRestConnection(`${info.fieldName}:${id}`, args, info, {
              page: (limit, offset) => list.page(id, limit, offset),
              count: () => list.count(id),
            });
          },
        },
        options.connection,
      ),
    /** One record by its REST id, or null when there is none. */
    lookup: (idType: 'UUID' | 'Int') =>
      t.field({
        type,
        description: `One of the ${parentNoun}'s ${what} by its REST id, or null when there is none. ${scope}`,
        extensions: { fanOut: 'call' },
        args: { databaseId: t.arg({ type: idType, required: true, description: 'The REST `id`.' }) },
        // Pothos cannot work out the resolver's return shape for a generic record type.
        resolve: (parent, { databaseId }, context) => loader(context).byId(parentId(parent), String(databaseId)) as never,
      }),
  };
}
