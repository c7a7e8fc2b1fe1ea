// The arrows of src/ point one way. Each part (a folder, or a file at the top of src/) may import only
// the parts the map below allows, the map itself has no cycle, and no module imports itself back
// through others. A new folder or file must be placed on the map. Type-only imports count too: they
// are arrows a reader follows all the same.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** What each part of src/ may import besides itself, lowest parts first. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  // Leaves: they import nothing of the gateway's.
  wire: [],
  'page-size': [],
  truncate: [],
  persisted: [],
  graphiql: [],
  'protocol-errors': [],
  'example-query': [],
  'budget-setting': [],
  'graphql-endpoint': [],
  // Who is calling: a request's bearer key, and the tag kept per caller instead of it.
  caller: [],
  // Reading an operation's selections (fragments, @skip/@include), as graphql-js would.
  selections: [],
  // Whether a caller's operation name is a GraphQL name.
  'operation-name': [],
  // Operations compiled once per document and operation name, and run as compiled.
  'compiled-operations': [],
  config: ['persisted', 'budget-setting'],
  // The REST client and its transport know nothing of GraphQL.
  rest: ['wire', 'config', 'truncate'],
  'graphql-errors': ['rest'],
  loaders: ['wire', 'rest', 'graphql-errors', 'page-size'],
  // This instance's subscriptions: shared polls, open streams, writes re-polling what they touched.
  subscriptions: ['caller', 'compiled-operations', 'graphql-errors', 'loaders', 'observability', 'rest'],
  context: ['caller', 'rest', 'loaders', 'graphql-errors', 'subscriptions', 'tracing'],
  limits: ['caller', 'config', 'graphql-errors', 'page-size', 'rest', 'selections'],
  schema: ['wire', 'rest', 'loaders', 'context', 'graphql-errors', 'limits', 'page-size', 'selections', 'subscriptions'],
  observability: ['config', 'graphql-endpoint', 'operation-name', 'rest', 'graphql-errors', 'truncate'],
  http: ['config', 'rest', 'observability'],
  // What the gateway keeps between requests, and what makes upstream calls count across them.
  store: ['config', 'observability'],
  'upstream-cache': ['caller', 'rest', 'store'],
  budget: ['budget-setting', 'caller', 'context', 'graphql-errors', 'store'],
  'upstream-economy': ['budget', 'budget-setting', 'config', 'context', 'observability', 'rest', 'store', 'upstream-cache'],
  // Spans of the requests and their upstream calls, fed by the request transport and the request log.
  tracing: ['config', 'graphql-endpoint', 'rest', 'observability', 'truncate'],
  // Idempotent mutations: remembered in the store, under the callers' tags.
  idempotency: ['caller', 'config', 'context', 'graphql-errors', 'store'],
  // Queries run before, answered again without Yoga's pipeline: what they share with it is handed in.
  'known-queries': ['compiled-operations', 'operation-name'],
  // The reference implementation shares the wire types with the client, and nothing else.
  'reference-api': ['wire'],
  // Upstream answers compared with what the schema reads, into metrics and logs.
  'drift-watch': ['observability', 'rest', 'schema'],
  gateway: [
    'budget-setting',
    'drift-watch',
    'compiled-operations',
    'config',
    'context',
    'example-query',
    'graphiql',
    'graphql-endpoint',
    'graphql-errors',
    'http',
    'idempotency',
    'known-queries',
    'limits',
    'observability',
    'persisted',
    'protocol-errors',
    'rest',
    'schema',
    'subscriptions',
    'tracing',
    'upstream-economy',
  ],
  main: ['config', 'example-query', 'gateway', 'http', 'observability', 'reference-api'],
};

const src = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.[jt]s$/.test(entry.name) ? [path] : [];
  });
}

/** `rest` for src/rest/client.ts, `config` for src/config.ts. */
const partOf = (file: string) => (relative(src, file).split('/')[0] ?? '').replace(/\.[jt]s$/, '');

/** Every module a file imports or re-exports from, by relative path (packages are not the map's concern). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^'";]*?['"](\.{1,2}\/[^'"]+)['"]/gm)].map((match) => match[1] as string);
  return specifiers.map((specifier) => resolve(dirname(file), specifier));
}

const files = sourceFiles(src);
const imports = new Map(files.map((file) => [file, importsOf(file)]));

/** A cycle in a graph, as the list of its nodes, or undefined. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the import map of src/', () => {
  it('places every part of src/', () => {
    const parts = new Set(files.map(partOf));
    expect([...parts].filter((part) => !(part in MAY_IMPORT))).toEqual([]);
  });

  it('has arrows that point one way', () => {
    expect(findCycle(new Map(Object.entries(MAY_IMPORT)))).toBeUndefined();
  });

  it('is kept: every import between parts is one the map allows', () => {
    const forbidden = [...imports].flatMap(([file, targets]) =>
      targets
        .filter((target) => partOf(target) !== partOf(file) && !MAY_IMPORT[partOf(file)]?.includes(partOf(target)))
        .map((target) => `${relative(src, file)} -> ${relative(src, target)}`),
    );
    expect(forbidden).toEqual([]);
  });

  it('has no module that imports itself back through others', () => {
    const cycle = findCycle(imports);
    expect(cycle?.map((file) => relative(src, file))).toBeUndefined();
  });

  it('sees the imports it checks (the map is not vacuous)', () => {
    const edges = [...imports].flatMap(([file, targets]) => targets.map((target) => `${partOf(file)} -> ${partOf(target)}`));
    expect(edges).toContain('rest -> wire');
    expect(edges).toContain('schema -> loaders');
    expect(edges).toContain('gateway -> schema');
  });
});
