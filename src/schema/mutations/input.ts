// Mutation inputs: REST body fields become input fields in one place (camelCased, all optional),
// and the REST body is built back from the keys the caller actually gave (contract: PATCH semantics).
import type { InputRef } from '@pothos/core';
import type { RestBody } from '../../rest/client.ts';
import { camelCase } from '../naming.ts';
import { parseNodeId } from '../node-registry.ts';

type ScalarName = 'String' | 'Int' | 'Boolean' | 'UUID' | 'DateTime' | 'EmailAddress' | 'JSON';
export type InputFieldSpec = [type: ScalarName | [ScalarName] | InputRef<unknown>, description: string];
/** REST body field name -> its GraphQL input type and description. */
export type InputSpec = Record<string, InputFieldSpec>;

// Pothos' input field builder, loosely typed so one helper serves every input type (as rest-fields.ts).
interface InputFieldBuilder {
  // biome-ignore lint: Pothos' own option types are too deep to restate here.
  field(options: any): unknown;
}

/** Every field of the spec as an optional input field, camelCased; lists take non-null items. */
export function restInputFields(t: InputFieldBuilder, spec: InputSpec): Record<string, never> {
  const fields: Record<string, unknown> = {};
  for (const [restName, [type, description]] of Object.entries(spec)) {
    fields[camelCase(restName)] = t.field({
      type,
      description,
      required: Array.isArray(type) ? { list: false, items: true } : false,
    });
  }
  return fields as Record<string, never>;
}

/**
 * The REST body for the spec's fields the input holds: a field left out stays out, a `null` is sent
 * as `null`, nothing else is added. graphql-js leaves absent fields out of the coerced input, so the
 * keys present are exactly what the caller gave.
 */
export function restBody(input: object, spec: InputSpec): RestBody {
  const body: RestBody = {};
  for (const restName of Object.keys(spec)) {
    const name = camelCase(restName);
    if (Object.hasOwn(input, name)) {
      const value = (input as Record<string, unknown>)[name];
      if (value !== undefined) body[restName] = value;
    }
  }
  return body;
}

/** The REST ids a global id input carries; BAD_USER_INPUT (no upstream call) when it is not a `typename` id. */
export function idParts(id: string | number, inputField: string, typename: string): string[] {
  return parseNodeId(String(id), `input.${inputField}`, [typename]).parts;
}
