// Where a REST field becomes a GraphQL field, and a mutation input becomes a REST body. A table lists
// each field by its GraphQL name, with the REST key beside it, its GraphQL type and its description:
//   createdAt: ['created_at', 'DateTime', 'When the organization was created.'],
// The REST value's TypeScript type must be one the GraphQL type serves, checked at compile time
// (`member_count: string | number | null` cannot be an `Int`: convert it explicitly). Read fields are
// nullable, so an upstream null nulls only that field; lists are non-null, `[]` for an upstream null
// (contract: Naming). Input fields are all optional, and the REST body holds exactly the fields given.
import type { FieldMap, InputFieldMap, InputRef } from '@pothos/core';
import { defaultFieldResolver } from 'graphql';
import type { RestBody } from '../upstream/client.ts';
import type { BuilderTypes } from './builder.ts';

/** What each scalar serves: a REST value of one of these types (or null) can be served as the scalar. */
interface ServedAs {
  String: string;
  Int: number;
  Float: number;
  Boolean: boolean;
  UUID: string;
  DateTime: string;
  EmailAddress: string;
  JSON: unknown;
}

type RestScalar = keyof ServedAs;

/** The scalars a REST value of type V can be served as, its null aside. */
type ScalarsFor<V> = { [S in RestScalar]: [NonNullable<V>] extends [ServedAs[S]] ? S : never }[RestScalar];
/** The list types a REST value of type V can be served as: `[S]` for a list of values S serves. */
type ListsFor<V> = NonNullable<V> extends readonly (infer Item)[] ? readonly [ScalarsFor<Item>] : never;

/** A field kept for old clients: why, and where its data went. */
interface FieldOptions {
  deprecated?: string;
}

/** One field: the REST key it reads, the GraphQL type (a scalar, or `[scalar]` for a list), its description. */
type RestField<Rest> = {
  [K in keyof Rest & string]: readonly [
    rest: K,
    type: ScalarsFor<Rest[K]> | ListsFor<Rest[K]>,
    description: string,
    options?: FieldOptions,
  ];
}[keyof Rest & string];

/** GraphQL field name -> the REST field it serves. */
export type RestFieldTable<Rest> = Record<string, RestField<Rest>>;

type ReadFieldBuilder<Rest> =
  | PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Rest>
  | PothosSchemaTypes.InterfaceFieldBuilder<BuilderTypes, Rest>;

/**
 * The table's fields on an object or interface type. A field named as its REST key gets GraphQL's
 * default resolver, which Pothos leaves out of the schema, so graphql-jit reads the value inline; any
 * resolver, however small, is called through graphql-jit's deferred path instead (a resolve info, a
 * response path and three closures per field of every record).
 */
export function restFields<Rest>(t: ReadFieldBuilder<Rest>, table: RestFieldTable<Rest>): FieldMap {
  // One call shape serves both builders: the table's types were checked against `Rest` above.
  const builder = t as unknown as { field(options: object): FieldMap[string] };
  const fields: FieldMap = {};
  for (const [name, [rest, type, description, options]] of Object.entries(table) as [string, RestField<Rest>][]) {
    const deprecationReason = options?.deprecated;
    fields[name] =
      typeof type === 'string'
        ? builder.field({
            type,
            description,
            deprecationReason,
            resolve: name === rest ? defaultFieldResolver : (record: Rest) => record[rest],
          })
        : builder.field({
            type: [...type],
            description,
            deprecationReason,
            nullable: { list: false, items: true },
            resolve: (record: Rest) => record[rest] ?? [],
          });
  }
  return fields;
}

/** One input field: the REST key it is sent as, its GraphQL input type, its description; an input object's own table. */
type RestInputField = readonly [
  rest: string,
  type: RestScalar | readonly [RestScalar] | InputRef<unknown>,
  description: string,
  options?: FieldOptions & { fields?: RestInputTable },
];

/** GraphQL input field name -> the REST body field it is sent as. */
export type RestInputTable = Readonly<Record<string, RestInputField>>;

/** The table's fields on an input type, all optional; list items are non-null. */
export function restInputFields(t: PothosSchemaTypes.InputFieldBuilder<BuilderTypes, 'InputObject'>, table: RestInputTable): InputFieldMap {
  const builder = t as unknown as { field(options: object): InputFieldMap[string] };
  const fields: InputFieldMap = {};
  for (const [name, [, type, description, options]] of Object.entries(table)) {
    const deprecationReason = options?.deprecated;
    fields[name] = Array.isArray(type)
      ? builder.field({ type: [...type], description, deprecationReason, required: { list: false, items: true } })
      : builder.field({ type, description, deprecationReason, required: false });
  }
  return fields;
}

/**
 * The REST body for the table's fields the input holds: a field left out stays out, a `null` is sent
 * as `null`, nothing else is added. graphql-js leaves absent fields out of the coerced input, so the
 * keys present are exactly what the caller gave.
 */
export function restBody(input: object, table: RestInputTable): RestBody {
  const given = input as Record<string, unknown>;
  const body: RestBody = {};
  for (const [name, [rest, , , options]] of Object.entries(table)) {
    const fields = options?.fields;
    const value = Object.hasOwn(given, name) ? given[name] : undefined;
    if (value === undefined) continue;
    body[rest] = fields && value !== null && typeof value === 'object' ? restBody(value, fields) : value;
  }
  return body;
}
