// No silent success (contract: The real service): after a create or update the upstream answered
// with success, each input field the caller set is looked up in the answer by its REST field. A
// field is not applied when the answer lacks it, or when the caller set a Boolean, Int, Float or
// null and the answer holds another value. Strings (UUID, DateTime, EmailAddress too), JSON, lists
// and input objects count only when absent: the upstream may normalise them (trim, re-case).
import { builder } from '../builder.ts';
import type { RestInputTable } from '../rest-fields.ts';

/** The write was made, but the upstream's answer shows some fields were not applied. */
export class NotAppliedError extends Error {
  override readonly name = 'NotAppliedError';
  constructor(
    readonly fields: string[],
    /** The record as the upstream answered it, tagged for the Node interface. */
    readonly record: unknown,
  ) {
    super(
      `The upstream answered success but did not apply ${fields.map((field) => `\`${field}\``).join(', ')}: the record is as it answered.`,
    );
  }
}

builder.objectType(NotAppliedError, {
  name: 'NotAppliedError',
  description:
    'The upstream answered success, but its answer shows some fields the input set were not applied (ignored or read-only there). The write was made: the other fields are as the record shows.',
  fields: (t) => ({
    message: t.exposeString('message', { nullable: false, description: 'Which fields were not applied.' }),
    fields: t.exposeStringList('fields', { nullable: false, description: 'The input field names not applied, in input order.' }),
    record: t.field({
      type: builder.nodeInterfaceRef(),
      description: 'The record as the upstream answered it (select its fields with `... on Domain { }` and so on).',
      resolve: (error) => error.record as never,
    }),
  }),
});

/** Types whose value the upstream must answer unchanged; other values may come back normalised. */
const EXACT_TYPES = new Set(['Boolean', 'Int', 'Float']);

/** The input fields (GraphQL names, in input order) that the upstream's answer shows were not applied. */
export function notAppliedFields(input: object, table: RestInputTable, answer: unknown): string[] {
  const answered = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
  const notApplied: string[] = [];
  for (const [name, value] of Object.entries(input)) {
    const entry = table[name];
    if (!entry || value === undefined) continue;
    const [rest, type] = entry;
    if (!Object.hasOwn(answered, rest)) notApplied.push(name);
    else if (value === null || (typeof type === 'string' && EXACT_TYPES.has(type))) {
      if (answered[rest] !== value) notApplied.push(name);
    }
  }
  return notApplied;
}
