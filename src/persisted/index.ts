// Persisted operations. By default the gateway accepts automatic persisted queries (Apollo's APQ
// protocol: a client sends `extensions.persistedQuery.sha256Hash`, and the query text once when the
// hash is unknown). With a manifest (PERSISTED_OPERATIONS) it runs only the operations listed there,
// by id, and refuses query text.
import { useAPQ } from '@graphql-yoga/plugin-apq';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { createApqStore, type SharedQueries } from './apq-store.ts';
import { manifestId, type OperationManifest } from './manifest.ts';

export type { OperationManifest } from './manifest.ts';

/** `sharedQueries`: where APQ texts are kept for every instance (CACHE=redis). */
export function persistedOperationPlugins(manifest: OperationManifest | undefined, sharedQueries?: SharedQueries): Plugin[] {
  if (!manifest) {
    const store = createApqStore({}, sharedQueries);
    // Once every check before execution passed (validation, the query limits): the text is one the gateway runs.
    // Synchronous unless there is something to share: no promise per request.
    const share = ({ args }: { args: { contextValue: unknown } }) => {
      const { params } = args.contextValue as { params?: { query?: string; extensions?: Record<string, unknown> } };
      const hash = persistedId(params?.extensions);
      return typeof hash === 'string' && params?.query ? store.share(hash, params.query) : undefined;
    };
    return [useAPQ({ store }), ...(sharedQueries ? [{ onExecute: share, onSubscribe: share }] : [])];
  }
  return [
    usePersistedOperations({
      getPersistedOperation: (id) => manifest.get(manifestId(id)) ?? null,
      allowArbitraryOperations: false,
      customErrors: {
        notFound: ({ params }) =>
          refusal(
            'PERSISTED_QUERY_NOT_IN_LIST',
            404,
            `No operation with id ${JSON.stringify(persistedId(params.extensions))} is in this gateway's list of persisted operations (PERSISTED_OPERATIONS): ` +
              'send the id of a listed operation (from the manifest the gateway was started with).',
          ),
        persistedQueryOnly: () =>
          refusal(
            'PERSISTED_QUERY_ONLY',
            400,
            'This gateway runs only persisted operations (PERSISTED_OPERATIONS is set): send `extensions.persistedQuery.sha256Hash` ' +
              'with the id of a listed operation instead of the query text.',
          ),
        keyNotFound: () =>
          refusal(
            'PERSISTED_QUERY_ID_REQUIRED',
            400,
            'Send `extensions: { persistedQuery: { version: 1, sha256Hash: "<operation id>" } }`: this gateway runs only persisted operations (PERSISTED_OPERATIONS is set).',
          ),
      },
    }),
  ];
}

function refusal(code: string, status: number, message: string) {
  return createGraphQLError(message, { extensions: { code, http: { status } } });
}

function persistedId(extensions: Record<string, unknown> | undefined): unknown {
  return (extensions?.persistedQuery as { sha256Hash?: unknown } | undefined)?.sha256Hash;
}
