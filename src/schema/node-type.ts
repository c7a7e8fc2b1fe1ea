// Declares a Node type: an object implementing `Node` whose `id` is its global id. The relay
// plugin's `builder.node` resolves every `id` through an async function; a list page of records
// then costs a promise per id, so ids are computed synchronously here.
import type { FieldMap, InterfaceRef, ObjectRef } from '@pothos/core';
import { type BuilderTypes, builder } from './builder.ts';
import { globalIdOf } from './global-id.ts';

type FieldBuilder<T> = PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, T>;

interface NodeTypeOptions<T> {
  description: string;
  /** The REST ids `node(id:)` needs to fetch the record again, parent first. */
  idParts: (record: T) => (string | number)[];
  interfaces?: InterfaceRef<BuilderTypes, T>[];
  fields: (t: FieldBuilder<T>) => FieldMap;
}

export function nodeType<T>(ref: ObjectRef<BuilderTypes, T>, { description, idParts, interfaces = [], fields }: NodeTypeOptions<T>): void {
  const typename = ref.name;
  builder.objectType(ref, {
    description,
    interfaces: [builder.nodeInterfaceRef(), ...interfaces],
    fields: (t) => ({
      id: t.field({
        type: 'ID',
        nullable: false,
        description: 'Opaque global id; `Query.node(id:)` resolves it.',
        resolve: (record) => globalIdOf(typename, idParts(record)),
      }),
      ...fields(t),
    }),
  });
}
