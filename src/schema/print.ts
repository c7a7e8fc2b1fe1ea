import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import { GraphQLSchema, lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './index.ts';

/** The public schema as committed in schema.graphql, with the @defer and @stream that the gateway serves (graphql-yoga's defer-stream plugin adds them). */
export function printPublicSchema(): string {
  const served = new GraphQLSchema({
    ...schema.toConfig(),
    directives: [...schema.getDirectives(), GraphQLDeferDirective, GraphQLStreamDirective],
  });
  return `${printSchema(lexicographicSortSchema(served))}\n`;
}
