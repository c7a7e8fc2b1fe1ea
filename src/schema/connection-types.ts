// The contract's named Connection/Edge types, and the pair of fields every REST list gets on its
// parent: a connection (`batchExports`) and, where REST has a retrieve, a lookup (`batchExport`).
import type { ObjectRef } from '@pothos/core';
import type { GatewayContext } from '../context.ts';
import type { ResourceLoader } from '../loaders/resource-loader.ts';
import { builder } from './builder.ts';
import { resolveRestConnection } from './connection.ts';

export function connectionType<R>(ref: ObjectRef<any, R>, name: string, what: string) {
  return builder.connectionObject(
    { type: ref, name: `${name}Connection`, description: `A page of ${what}, with the total count of the list.` },
    { name: `${name}Edge`, description: `One of ${what}, with its cursor.` },
  );
}

interface ListFieldsOptions<Parent, R> {
  ref: ObjectRef<any, R>;
  /** Type name prefix of the connection, e.g. `BatchExport` for `BatchExportConnection`. */
  typeName: string;
  /** Field names on the parent, e.g. `batchExports` and `batchExport` (no lookup without one). */
  listField: string;
  lookupField?: string;
  lookupIdType?: 'UUID' | 'Int';
  /** Plural noun for descriptions, e.g. `batch exports`. */
  what: string;
  parentNoun: 'organization' | 'project';
  scope: string;
  parentId(parent: Parent): string;
  loader(context: GatewayContext): ResourceLoader<any, R>;
}

export function listFields<Parent, R>(parentRef: ObjectRef<any, Parent>, options: ListFieldsOptions<Parent, R>): void {
  const connection = connectionType(options.ref, options.typeName, options.what);
  const { listField, lookupField, parentId, loader } = options;
  builder.objectFields(parentRef, (t) => ({
    [listField]: t.connection(
      {
        type: options.ref,
        description: `The ${options.parentNoun}'s ${options.what}. ${options.scope}`,
        extensions: { fanOut: 'connection' },
        resolve: (parent, args, context, info) => {
          const id = parentId(parent);
          const resource = loader(context);
          return resolveRestConnection(`${listField}:${id}`, args, info, {
            page: (limit, offset) => resource.page(id, limit, offset),
            count: () => resource.count(id),
          });
        },
      },
      connection,
    ),
    ...(lookupField && {
      [lookupField]: t.field({
        type: options.ref,
        description: `One of the ${options.parentNoun}'s ${options.what} by its REST id, or null when there is none. ${options.scope}`,
        extensions: { fanOut: 'call' },
        args: { databaseId: t.arg({ type: options.lookupIdType ?? 'UUID', required: true, description: 'The REST `id`.' }) },
        resolve: (parent, { databaseId }, context) => loader(context).byId(parentId(parent), String(databaseId)) as never,
      }),
    }),
  }));
}
