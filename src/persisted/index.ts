// Persisted operations. By default the gateway accepts automatic persisted queries (Apollo's APQ
// protocol: a client sends `extensions.persistedQuery.sha256Hash`, and the query text once when the
// hash is unknown). With a manifest (PERSISTED_OPERATIONS) it runs only the operations listed there,
// by id, and refuses query text.
import { useAPQ } from '@graphql-yoga/plugin-apq';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { apqHash, createApqStore, type SharedQueries } from './apq-store.ts';
import { manifestId, type OperationManifest } from './manifest.ts';

interface PersistedOperations {
  /** Where persisted-operation plugins go: right after the request parsers. */
  plugins: Plugin[];
  /** Last before execution, once every check passed: an APQ registration is shared (CACHE=redis). */
  afterChecks: Plugin[];
  /**
   * The query text a request sending only an id (`extensions.persistedQuery`, version 1) runs, as
   * its plugin finds it, when that takes no store round trip: the manifest's, or an APQ text in this
   * instance's memory without a shared store. Undefined otherwise (a WebSocket subscribe or a batch
   * entry then leaves the lookup to the plugin).
   */
  textOf(id: string): string | undefined;
  /** False with a manifest: a query sent as text is refused. */
  acceptsQueryText: boolean;
}

/** `sharedQueries`: where APQ texts are kept for every instance (CACHE=redis). */
export function persistedOperations(manifest: OperationManifest | undefined, sharedQueries?: SharedQueries): PersistedOperations {
  if (!manifest) {
    const store = createApqStore({}, sharedQueries);
    // Synchronous unless there is something to share: no promise per request.
    const share = ({ args }: { args: { contextValue: unknown } }) => {
      const { params } = args.contextValue as { params?: { query?: string; extensions?: Record<string, unknown> } };
      const hash = persistedId(params?.extensions);
      return typeof hash === 'string' && params?.query ? store.share(hash, params.query) : undefined;
    };
    return {
      plugins: [queryMustBeText, useAPQ({ store, hash: apqHash })],
      afterChecks: sharedQueries ? [{ onExecute: share, onSubscribe: share }] : [],
      // With a shared store the plugin's lookup also tells it of the use: left to the plugin.
      textOf: (hash) => (sharedQueries ? undefined : (store.inMemory(hash) ?? undefined)),
      acceptsQueryText: true,
    };
  }
  const textOf = (id: string) => manifest.get(manifestId(id));
  return { plugins: manifestPlugins(textOf), afterChecks: [], textOf, acceptsQueryText: false };
}

/**
 * Yoga checks that `query` is a string only after the APQ plugin stored it under its hash, and that
 * plugin's hashing reads an array as bytes and an object as nothing: a non-string `query` is refused
 * first, with Yoga's own error, so only text is ever stored (or would match another's hash).
 */
const queryMustBeText: Plugin = {
  onParams({ params }) {
    const { query } = params as { query?: unknown };
    if (query == null || typeof query === 'string') return;
    const given = Array.isArray(query) ? 'array' : typeof query;
    throw refusal('BAD_REQUEST', 400, `Expected "query" param to be a string, but given ${given}.`);
  },
};

/** `textOf`: a listed operation's document by its id. */
function manifestPlugins(textOf: (id: string) => string | undefined): Plugin[] {
  return [
    usePersistedOperations({
      getPersistedOperation: (id) => textOf(id) ?? null,
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
