// How graphql-jit serializes every scalar of the schema. An upstream value its field's type cannot
// represent (a string for an `Int`, a malformed date or UUID, a `JSON` value nested deeper than
// MAX_JSON_DEPTH, which would overflow the response's JSON.stringify) fails that field alone, with
// one fixed message that never quotes the value. graphql-jit keeps only the message of a
// serializer's failure, so src/errors/graphql-errors.ts knows it by that message and gives it UPSTREAM_ERROR.
import { type GraphQLScalarType, type GraphQLSchema, isScalarType } from 'graphql';
import { UNREPRESENTABLE_VALUE } from '../errors/graphql-errors.ts';
import { exceedsDepth } from '../limits/json-depth.ts';

type Serializer = (value: unknown) => unknown;

/** graphql-jit's `customSerializers`, by scalar name. */
export function leafSerializers(schema: GraphQLSchema, maxJsonDepth: number): Record<string, Serializer> {
  const serializers: Record<string, Serializer> = {};
  for (const type of Object.values(schema.getTypeMap())) {
    if (isScalarType(type)) serializers[type.name] = representable(type);
  }
  serializers.JSON = (value) => {
    if (exceedsDepth(value, maxJsonDepth)) throw new Error(UNREPRESENTABLE_VALUE);
    return value;
  };
  return serializers;
}

function representable(type: GraphQLScalarType): Serializer {
  return (value) => {
    let serialized: unknown;
    try {
      serialized = type.serialize(value);
    } catch {
      throw new Error(UNREPRESENTABLE_VALUE);
    }
    // graphql-jit reports these itself, quoting the value.
    if (serialized === undefined || Number.isNaN(serialized)) throw new Error(UNREPRESENTABLE_VALUE);
    return serialized;
  };
}
