// The arrows of src/ point one way (`npm run lint:imports`, part of `npm test`). Each part (a folder,
// or a file at the top of src/) may import only the parts listed for it, every one of which is
// listed above it, so the map itself has no cycle; no module imports itself back through others;
// and a new folder or file must be placed on the map. Type-only imports count too: they are arrows
// a reader follows all the same.

/** What each part of src/ may import besides itself, lowest parts first. */
const MAY_IMPORT = {
  // Leaves: they import nothing of the gateway's.
  wire: [],
  truncate: [],
  persisted: [],
  graphiql: [],
  // Who is calling: a request's bearer key, and the tag kept per caller instead of it.
  caller: [],
  config: ['persisted'],
  // The REST client and its transport know nothing of GraphQL.
  upstream: ['wire', 'config', 'truncate'],
  errors: ['upstream'],
  // @defer/@stream (which operations leave compiled execution) and batched requests.
  incremental: ['errors'],
  loaders: ['wire', 'upstream', 'errors'],
  limits: ['caller', 'config', 'errors', 'loaders', 'upstream'],
  // Operations compiled once per document and operation name, and run as compiled (answers bounded by MAX_RESPONSE_BYTES).
  execution: ['limits'],
  observability: ['config', 'upstream', 'errors', 'truncate'],
  // This instance's subscriptions: shared polls, open streams, writes re-polling what they touched.
  subscriptions: ['caller', 'execution', 'errors', 'loaders', 'observability', 'upstream'],
  // Spans of the requests and their upstream calls, fed by the request transport and the request log.
  tracing: ['config', 'upstream', 'observability', 'truncate'],
  context: ['caller', 'upstream', 'loaders', 'errors', 'subscriptions', 'tracing'],
  schema: ['wire', 'upstream', 'loaders', 'context', 'errors', 'limits', 'observability', 'subscriptions'],
  http: ['config', 'errors', 'upstream', 'observability'],
  // What the gateway keeps between requests, and what makes upstream calls count across them.
  store: ['config', 'observability'],
  caching: ['caller', 'upstream', 'store'],
  budget: ['config', 'caller', 'context', 'errors', 'store'],
  'upstream-economy': ['budget', 'config', 'context', 'observability', 'upstream', 'store', 'caching'],
  // Idempotent mutations: remembered in the store, under the callers' tags.
  idempotency: ['caller', 'config', 'context', 'errors', 'store'],
  // The reference implementation shares the wire types with the client, and nothing else.
  'reference-api': ['wire'],
  gateway: [
    'config',
    'context',
    'errors',
    'execution',
    'graphiql',
    'http',
    'idempotency',
    'incremental',
    'limits',
    'observability',
    'persisted',
    'schema',
    'subscriptions',
    'tracing',
    'upstream',
    'upstream-economy',
  ],
  main: ['config', 'graphiql', 'gateway', 'http', 'observability', 'reference-api'],
};

const parts = Object.keys(MAY_IMPORT);
for (const [index, part] of parts.entries()) {
  const above = parts.slice(0, index);
  const below = MAY_IMPORT[part].filter((allowed) => !above.includes(allowed));
  if (below.length > 0) throw new Error(`.dependency-cruiser.cjs: ${part} may import ${below.join(', ')}, not listed above it`);
}

/** src/<part>/... or src/<part>.ts, for each of `names`. */
const pathOf = (names) => `^src/(${names.join('|')})(/|\\.[jt]s$)`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'not-on-the-map',
      comment: 'Every folder or file at the top of src/ is a part on the map in .dependency-cruiser.cjs.',
      severity: 'error',
      from: { path: '^src/', pathNot: pathOf(parts) },
      to: {},
    },
    {
      name: 'imports-a-part-not-on-the-map',
      severity: 'error',
      from: {},
      to: { path: '^src/', pathNot: pathOf(parts) },
    },
    ...parts.map((part) => ({
      name: `${part}-imports-only-what-the-map-allows`,
      severity: 'error',
      from: { path: pathOf([part]) },
      to: { path: '^src/', pathNot: pathOf([part, ...MAY_IMPORT[part]]) },
    })),
    {
      name: 'no-circular',
      comment: 'No module imports itself back through others.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
