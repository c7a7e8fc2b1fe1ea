// The contract's scalars, from graphql-scalars. DateTime keeps the upstream's string as sent
// (microseconds included) instead of round-tripping it through a JS Date. Literals are parsed without
// the request's variables: graphql-jit compiles them once per document and writes a warning to
// stderr (past LOG_FILE) for any scalar whose parseLiteral takes them.
import { BREAK, GraphQLError, GraphQLScalarType, Kind, print, type ValueNode, type VariableNode, visit } from 'graphql';
import { DateTimeResolver, JSONResolver, UUIDResolver } from 'graphql-scalars';
import { gatewayError } from '../errors/graphql-errors.ts';
import { isServiceEmail } from '../wire/email.ts';
import { isUuid } from '../wire/uuid.ts';
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
  parseLiteral: (ast) => {
    DateTimeResolver.parseLiteral(ast, undefined);
    return (ast as { value: string }).value;
  },
});

/**
 * A JSON literal is taken as written. A variable inside one (`{a: $x}`) would be compiled away by
 * graphql-jit, silently leaving its value out of the write: it is refused instead.
 */
const Json = new GraphQLScalarType({
  ...JSONResolver.toConfig(),
  parseLiteral: (ast: ValueNode) => {
    refuseVariables(ast, 'A JSON literal cannot hold a variable: pass the whole JSON value as one variable.');
    return JSONResolver.parseLiteral(ast, undefined);
  },
});

/** BAD_USER_INPUT, at the variable, when a free-form literal holds one (graphql-jit would drop it). */
export function refuseVariables(ast: ValueNode, message: string): void {
  let variable: VariableNode | undefined;
  visit(ast, {
    Variable(node) {
      variable = node;
      return BREAK;
    },
  });
  if (variable) throw gatewayError('BAD_USER_INPUT', message, {}, variable);
}

/**
 * graphql-scalars' UUID takes `{…}` and a stray `}` too, which then reached the upstream's path
 * (`…/<uuid>%7D/`). Only the dashed form is accepted, and in lower case, as the upstream's paths
 * have it (Django's UUID path converter matches lower case only), so `ABC…` and `abc…` are one id.
 */
const Uuid = new GraphQLScalarType<string, string>({
  ...UUIDResolver.toConfig(),
  parseValue: (value) => dashedUuid(value),
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError(`Value is not a valid UUID: ${print(ast)}`, { nodes: ast });
    return dashedUuid(ast.value, ast);
  },
});

function dashedUuid(value: unknown, node?: ValueNode): string {
  if (!isUuid(value)) throw new GraphQLError(`Value is not a valid UUID: ${JSON.stringify(value ?? null)}`, { nodes: node });
  return value.toLowerCase();
}

/**
 * Served as the upstream sends it (an output never fails on an address the service stored, e.g.
 * `anna@bücher.de`); an input must be one the service's Django EmailValidator accepts, and is sent
 * as given.
 */
const EmailAddress = new GraphQLScalarType<string, string>({
  name: 'EmailAddress',
  description:
    "An e-mail address. Inputs: an ASCII local part and a host name, an internationalised domain (e.g. `anna@bücher.de`), `localhost` or an `[IP]` literal, at most 320 characters (the service's Django EmailValidator). Outputs: the address as the service stored it.",
  serialize: (value) => {
    if (typeof value !== 'string') throw new TypeError('An e-mail address must be a string.');
    return value;
  },
  parseValue: (value) => serviceEmail(value),
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError(`Value is not a valid e-mail address: ${print(ast)}`, { nodes: ast });
    return serviceEmail(ast.value, ast);
  },
});

function serviceEmail(value: unknown, node?: ValueNode): string {
  if (typeof value !== 'string' || !isServiceEmail(value)) {
    throw new GraphQLError(`Value is not a valid e-mail address: ${JSON.stringify(value ?? null)}`, { nodes: node });
  }
  return value;
}

builder.addScalarType('UUID', Uuid);
builder.addScalarType('DateTime', DateTime);
builder.addScalarType('EmailAddress', EmailAddress);
builder.addScalarType('JSON', Json);
