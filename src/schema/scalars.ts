// The contract's scalars, from graphql-scalars. DateTime keeps the upstream's string as sent
// (microseconds included) instead of round-tripping it through a JS Date.
import { GraphQLScalarType } from 'graphql';
import { DateTimeResolver, EmailAddressResolver, JSONResolver, UUIDResolver } from 'graphql-scalars';
import { builder } from './builder.ts';

const DateTime = new GraphQLScalarType<string, string>({
  ...DateTimeResolver.toConfig(),
  description: 'An ISO-8601 / RFC 3339 date-time string in UTC, such as `2026-01-05T10:00:00Z`.',
  serialize: (value) => {
    if (typeof value === 'string') {
      DateTimeResolver.serialize(value); // throws on a malformed value, so it nulls only this field
      return value;
    }
    return (DateTimeResolver.serialize(value) as Date).toISOString();
  },
  parseValue: (value) => {
    DateTimeResolver.parseValue(value);
    return String(value);
  },
  parseLiteral: (ast, variables) => {
    DateTimeResolver.parseLiteral(ast, variables);
    return (ast as { value: string }).value;
  },
});

builder.addScalarType('UUID', UUIDResolver);
builder.addScalarType('DateTime', DateTime);
builder.addScalarType('EmailAddress', EmailAddressResolver);
builder.addScalarType('JSON', JSONResolver);
