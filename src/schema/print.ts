import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './index.ts';

/** The public schema as committed in schema.graphql. */
export function printPublicSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
