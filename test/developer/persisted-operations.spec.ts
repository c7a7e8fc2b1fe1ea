// Persisted operations. By default the gateway speaks Apollo's APQ protocol (a hash alone, the text
// once when the hash is unknown); with PERSISTED_OPERATIONS=<manifest> it runs only the manifest's
// operations, by id, and refuses query text with errors that name the setting.
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { createApqStore } from '../../src/persisted/apq-store.ts';
import { readOperationManifest } from '../../src/persisted/manifest.ts';
import { type Harness, startHarness } from '../support/harness.ts';

const manifestFile = fileURLToPath(new URL('../../examples/generated/persisted-documents.json', import.meta.url));
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const persistedQuery = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

interface Answer {
  status: number;
  data?: any;
  errors?: { message: string; extensions?: { code?: string } }[];
  calls: number;
}

async function post(h: Harness, body: Record<string, unknown>): Promise<Answer> {
  h.api.clearRequests();
  const response = await h.gateway.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${h.api.keys.demo}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, ...((await response.json()) as object), calls: h.api.requests.length };
}

async function getWithHash(h: Harness, hash: string, variables?: unknown): Promise<Answer> {
  h.api.clearRequests();
  const params = new URLSearchParams({ extensions: JSON.stringify(persistedQuery(hash)) });
  if (variables) params.set('variables', JSON.stringify(variables));
  const response = await h.gateway.yoga.fetch(`http://gateway.test/graphql?${params}`, {
    headers: { accept: 'application/json', authorization: `Bearer ${h.api.keys.demo}` },
  });
  return { status: response.status, ...((await response.json()) as object), calls: h.api.requests.length };
}

describe('automatic persisted queries (the default)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const query = '{ organizations(first: 1) { totalCount nodes { name } } }';

  it('answers an unknown hash with PersistedQueryNotFound, runs query and hash together, then the hash alone', async () => {
    const miss = await post(h, { extensions: persistedQuery(sha256(query)) });
    expect(miss.errors).toEqual([{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }]);
    expect(miss.calls).toBe(0);

    const registered = await post(h, { query, extensions: persistedQuery(sha256(query)) });
    expect(registered.errors).toBeUndefined();
    expect(registered.data.organizations.nodes[0].name).toBe('Hedgehog Analytics');

    const hit = await post(h, { extensions: persistedQuery(sha256(query)) });
    expect(hit.errors).toBeUndefined();
    expect(hit.data).toEqual(registered.data);
    const byGet = await getWithHash(h, sha256(query));
    expect(byGet.data).toEqual(registered.data);
  });

  it('refuses a hash that is not the hash of the text sent with it, without an upstream call', async () => {
    const mismatch = await post(h, { query, extensions: persistedQuery(sha256('{ __typename }')) });
    expect(mismatch.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_MISMATCH');
    expect(mismatch.calls).toBe(0);
  });

  it('still runs plain query text', async () => {
    const plain = await post(h, { query });
    expect(plain.data.organizations.totalCount).toBe(2);
  });

  it('refuses a registration whose query is not text before it is stored: another caller’s hash and the store stay whole', async () => {
    const registered = await post(h, { query, extensions: persistedQuery(sha256(query)) });
    // Yoga's APQ plugin hashes what it is given with a TextEncoder that reads an array as its bytes
    // and an object as nothing: both matched a hash, and were stored, before Yoga refused them.
    const forgeries = [
      { query: [...Buffer.from(query)], extensions: persistedQuery(sha256(query)), type: 'array' },
      { query: { length: 'x' }, extensions: persistedQuery(sha256('')), type: 'object' },
      { query: 42, extensions: persistedQuery(sha256('42')), type: 'number' },
    ];
    for (const { type, ...body } of forgeries) {
      const refused = await post(h, body);
      expect(refused.status, type).toBe(400);
      expect(refused.errors, type).toEqual([
        { message: `Expected "query" param to be a string, but given ${type}.`, extensions: { code: 'BAD_REQUEST' } },
      ]);
      expect(refused.calls).toBe(0);
    }
    const hit = await post(h, { extensions: persistedQuery(sha256(query)) });
    expect(hit.data).toEqual(registered.data);
    // The store still keeps what it is given (an object's NaN length once made it drop everything).
    const other = '{ organizations(first: 2) { totalCount } }';
    await post(h, { query: other, extensions: persistedQuery(sha256(other)) });
    expect((await post(h, { extensions: persistedQuery(sha256(other)) })).data).toEqual({ organizations: { totalCount: 2 } });
  });
});

describe('PERSISTED_OPERATIONS: only the manifest codegen wrote for examples/', () => {
  let h: Harness;
  const manifest = readOperationManifest(manifestFile);
  const idOf = (name: string) => [...manifest].find(([, text]) => new RegExp(`^(query|mutation) ${name}\\b`).test(text))![0];

  beforeAll(async () => {
    h = await startHarness({}, { persistedOperations: manifest });
  });
  afterAll(() => h.close());

  it('lists the example operations by their sha256 hashes', () => {
    expect([...manifest.values()].map((text) => /^\w+ (\w+)/.exec(text)![1]).sort()).toEqual([
      'BatchExportsPage',
      'Dashboard',
      'DeferredDashboard',
      'InviteMembers',
      'PauseBatchExport',
      'UnpauseBatchExport',
    ]);
    for (const [id, text] of manifest) expect(id).toBe(sha256(text));
  });

  it('runs a listed operation by its id, with or without the sha256: prefix, by POST or GET', async () => {
    const dashboard = await post(h, { extensions: persistedQuery(idOf('Dashboard')) });
    expect(dashboard.errors).toBeUndefined();
    expect(dashboard.data.organizations.nodes.map((o: { name: string }) => o.name)).toEqual(['Hedgehog Analytics', 'Prickly Labs']);

    const prefixed = await post(h, { extensions: persistedQuery(`sha256:${idOf('Dashboard')}`) });
    expect(prefixed.data).toEqual(dashboard.data);

    const organization = dashboard.data.organizations.nodes[0].databaseId as string;
    const page = await getWithHash(h, idOf('BatchExportsPage'), { organization, first: 3 });
    expect(page.errors).toBeUndefined();
    expect(page.data.organization.batchExports.nodes).toHaveLength(3);
    expect(page.data.organization.batchExports.pageInfo.hasNextPage).toBe(true);
  });

  it('refuses an id that is not listed, naming the setting, without an upstream call', async () => {
    const unknown = await post(h, { extensions: persistedQuery(sha256('{ organizations { totalCount } }')) });
    expect(unknown.status).toBe(404);
    expect(unknown.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_NOT_IN_LIST');
    expect(unknown.errors?.[0]?.message).toContain('PERSISTED_OPERATIONS');
    expect(unknown.calls).toBe(0);
  });

  it("refuses query text, even a listed operation's own text and an APQ registration, naming the setting", async () => {
    for (const body of [
      { query: '{ organizations { totalCount } }' },
      { query: manifest.get(idOf('Dashboard')) },
      { query: manifest.get(idOf('Dashboard')), extensions: persistedQuery(idOf('Dashboard')) },
    ]) {
      const refused = await post(h, body);
      expect(refused.status).toBe(400);
      expect(refused.data).toBeUndefined();
      expect(refused.errors).toEqual([
        {
          message: expect.stringContaining('only persisted operations (PERSISTED_OPERATIONS is set)'),
          extensions: { code: 'PERSISTED_QUERY_ONLY' },
        },
      ]);
      expect(refused.calls).toBe(0);
    }
    const neither = await post(h, {});
    expect(neither.errors?.[0]?.extensions?.code).toBe('PERSISTED_QUERY_ID_REQUIRED');
  });
});

describe('the PERSISTED_OPERATIONS setting', () => {
  const dir = mkdtempSync(join(tmpdir(), 'persisted-'));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('is off by default, and reads a codegen or an Apollo manifest', () => {
    expect(loadConfig({}).persistedOperations).toBeUndefined();
    expect(loadConfig({ PERSISTED_OPERATIONS: manifestFile }).persistedOperations?.size).toBe(6);
    const apollo = file(
      'apollo.json',
      JSON.stringify({
        format: 'apollo-persisted-query-manifest',
        version: 1,
        operations: [{ id: 'abc', name: 'Q', type: 'query', body: 'query Q { __typename }' }],
      }),
    );
    expect([...loadConfig({ PERSISTED_OPERATIONS: apollo }).persistedOperations!]).toEqual([['abc', 'query Q { __typename }']]);
  });

  it.each([
    ['a missing file', join(dir, 'missing.json'), /cannot read the file \(ENOENT/],
    ['a file that is not JSON', file('text.json', 'query Q { a }'), /is not JSON/],
    ['a JSON file of another shape', file('array.json', '["query Q { a }"]'), /must map operation ids to GraphQL documents/],
    ['a manifest without operations', file('empty.json', '{}'), /lists no operations/],
    ['an entry that is not GraphQL', file('broken.json', '{"abc": "query {"}'), /operation abc in .* is not a GraphQL document/],
  ])('stops the start on %s, saying what is wrong', (_, path, message) => {
    const attempt = () => loadConfig({ PERSISTED_OPERATIONS: path });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/^PERSISTED_OPERATIONS: /);
    expect(attempt).toThrow(message);
  });
});

describe('the APQ store', () => {
  it('keeps the most recently used queries within its count and size bounds', () => {
    const store = createApqStore({ maxEntries: 2, maxChars: 10 });
    store.set('a', 'aaa');
    store.set('b', 'bbb');
    store.get('a'); // now b is the oldest
    store.set('c', 'ccc');
    expect([store.get('a'), store.get('b'), store.get('c')]).toEqual(['aaa', null, 'ccc']);
    store.set('d', 'dddddddd'); // 3 + 3 + 8 > 10: the oldest go first
    expect([store.get('a'), store.get('c'), store.get('d')]).toEqual([null, null, 'dddddddd']);
    store.set('e', 'e'.repeat(11)); // larger than the whole budget: not kept
    expect([store.get('d'), store.get('e')]).toEqual(['dddddddd', null]);
  });
});
