// Idempotent mutations with Apollo Client: a link that gives each mutation call one
// `Idempotency-Key`, placed before RetryLink so that every attempt RetryLink makes of that call
// carries the same key. A retry after a lost answer then gets the first attempt's response from the
// gateway (`Idempotent-Replayed: true`) instead of making the write a second time.
//
//   GATEWAY_KEY=<key> npx tsx examples/apollo-idempotency.ts     # against http://localhost:4000/graphql
//
// It pauses the first running batch export of the first organization, then unpauses it.
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { ApolloClient, ApolloLink, HttpLink, InMemoryCache } from '@apollo/client';
import { ServerError } from '@apollo/client/errors';
import { RetryLink } from '@apollo/client/link/retry';
import { OperationTypeNode } from 'graphql';
import { DashboardDocument, PauseBatchExportDocument, UnpauseBatchExportDocument } from './generated/graphql.ts';

/**
 * Sets `Idempotency-Key` on each mutation, once per call: RetryLink (after this link) sends the
 * same operation, with the same context and so the same header, on every attempt.
 */
const idempotencyLink = new ApolloLink((operation, forward) => {
  if (operation.operationType === OperationTypeNode.MUTATION && operation.getContext().idempotencyKey === undefined) {
    const idempotencyKey = randomUUID();
    operation.setContext(({ headers }) => ({ idempotencyKey, headers: { ...headers, 'Idempotency-Key': idempotencyKey } }));
  }
  return forward(operation);
});

declare module '@apollo/client' {
  interface DefaultContext {
    /** The key idempotencyLink gave this mutation call. */
    idempotencyKey?: string;
  }
}

/**
 * Worth sending again with the same key: an answer that never arrived (a network error), or the
 * gateway's "still running" (409) or "cannot remember keys right now" (503), both with Retry-After.
 * A 422 (the key reused for another request) or a 400 (a malformed key) would fail again.
 */
const retryable = (error: unknown) => !ServerError.is(error) || error.response.headers.has('retry-after');

export function createApolloClient(options: { url: string; key: string; fetch?: typeof fetch }): ApolloClient {
  return new ApolloClient({
    // Each mutation's result is a union: the cache must know its members to read the fragments.
    cache: new InMemoryCache({
      possibleTypes: {
        PauseBatchExportResult: ['PauseBatchExportPayload', 'NotFoundError', 'ValidationError'],
        UnpauseBatchExportResult: ['UnpauseBatchExportPayload', 'NotFoundError', 'ValidationError'],
      },
    }),
    link: ApolloLink.from([
      idempotencyLink,
      new RetryLink({ delay: { initial: 300, max: 3000 }, attempts: { max: 5, retryIf: retryable } }),
      // `application/json`: a refusal's HTTP status (409, 503) then reaches RetryLink as a ServerError,
      // where with graphql-response+json it would arrive as a result with errors, never retried.
      new HttpLink({
        uri: options.url,
        headers: { authorization: `Bearer ${options.key}`, accept: 'application/json' },
        fetch: options.fetch,
      }),
    ]),
  });
}

/** Pauses the first running export and unpauses it again; each mutation is one write however often it is retried. */
export async function pauseAndUnpause(client: ApolloClient, log: (line: string) => void = console.log): Promise<void> {
  const { data } = await client.query({ query: DashboardDocument });
  const running = data?.organizations.nodes[0]?.batchExports?.nodes.find((e) => e.paused === false);
  if (!running) return log('no running batch export to pause');
  const paused = await client.mutate({ mutation: PauseBatchExportDocument, variables: { id: running.id } });
  if (paused.data?.pauseBatchExport.__typename !== 'PauseBatchExportPayload') throw new Error('pause failed');
  log(`paused "${paused.data.pauseBatchExport.batchExport?.name}"`);
  const unpaused = await client.mutate({ mutation: UnpauseBatchExportDocument, variables: { id: running.id } });
  if (unpaused.data?.unpauseBatchExport.__typename !== 'UnpauseBatchExportPayload') throw new Error('unpause failed');
  log(`unpaused it again (paused: ${unpaused.data.unpauseBatchExport.batchExport?.paused})`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const key = process.env.GATEWAY_KEY;
  if (!key) {
    console.error('Set GATEWAY_KEY to your key (`npm start` prints the demo key).');
    process.exit(2);
  }
  pauseAndUnpause(createApolloClient({ url: process.env.GATEWAY_URL || 'http://localhost:4000/graphql', key })).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
