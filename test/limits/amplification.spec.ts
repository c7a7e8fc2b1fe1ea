// Response amplification (issue 52): what an answer can echo back is bounded before execution. A
// global id holds only what its type's ids can be (a project id is digits, a UUID a UUID), `node`,
// `nodes` and `_entities` look up at most MAX_LOOKUP_IDS ids together, no answer is larger than
// MAX_RESPONSE_BYTES, and lookups answered without an upstream call still weigh in admission.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { globalId } from '../../src/schema/global-id.ts';
import { startHarness } from '../support/harness.ts';
import { type HttpHarness, startHttpHarness } from '../support/http-server.ts';

const encode = (raw: string) => Buffer.from(raw).toString('base64');
const ORG = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbb1';

describe('ids', () => {
  let h: Awaited<ReturnType<typeof startHarness>>;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it.each([
    ['a project id of letters', encode('Project:abc')],
    ['a project id of 21 digits', encode(`Project:${'1'.repeat(21)}`)],
    ['a 45 KB project id', encode(`Project:${'1'.repeat(45_000)}`)],
    ['a survey under a project id of letters', encode(`Survey:abc:${ORG}`)],
    ['an organization id that is no UUID', encode(`Organization:${'b'.repeat(36)}`)],
    ['a global id of 257 characters', 'A'.repeat(257)],
  ])('refuses %s as BAD_USER_INPUT before execution, echoing nothing of it', async (_name, id) => {
    const { status, body, calls } = await h.runCounting(`query($id: ID!) { node(id: $id) { id } }`, { id });
    expect(status).toBe(200);
    expect(body.data).toBeNull();
    expect(body.errors?.map((e) => e.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(JSON.stringify(body).length).toBeLessThan(300);
    expect(calls).toEqual([]);
  });

  it('refuses a project databaseId that is not digits, and takes digits and @current', async () => {
    const refused = await h.runCounting(`{ project(databaseId: "x${'1'.repeat(40)}") { databaseId } }`);
    expect(refused.body.data).toBeNull();
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', argumentName: 'databaseId' });
    expect(refused.errors?.[0]?.message).toBe('`databaseId` must be a project id: 1 to 20 digits, or `@current`.');
    const id = globalId('Project', '12345');
    const { data, errors } = await h.run<{ project: unknown; node: unknown }, unknown>(
      `query($id: ID!) { project(databaseId: "12345") { id databaseId } node(id: $id) { ... on Project { databaseId } } }`,
      { id },
    );
    expect(errors).toBeUndefined();
    expect(data).toEqual({ project: { id, databaseId: '12345' }, node: { databaseId: '12345' } });
    expect((await h.run(`{ project(databaseId: "@current") { databaseId } }`)).errors).toBeUndefined();
  });
});

describe('MAX_LOOKUP_IDS', () => {
  it('is 250 by default', async () => {
    const h = await startHarness();
    try {
      const representations = Array.from({ length: 251 }, () => ({ __typename: 'Project', id: globalId('Project', '1') }));
      const { errors } = await h.run(`query($r: [_Any!]!) { _entities(representations: $r) { __typename } }`, { r: representations });
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxLookupIds', lookupIds: 251, max: 250 });
      const within = await h.run(`query($r: [_Any!]!) { _entities(representations: $r) { __typename } }`, { r: representations.slice(1) });
      expect(within.errors).toBeUndefined();
    } finally {
      await h.close();
    }
  });

  let h: Awaited<ReturnType<typeof startHarness>>;
  beforeAll(async () => {
    h = await startHarness({}, { maxLookupIds: 5 });
  });
  afterAll(() => h.close());
  const projects = (n: number) => Array.from({ length: n }, (_, i) => globalId('Project', String(i + 1)));

  it('takes ids up to the bound in nodes, node and _entities together', async () => {
    const { data, errors, calls } = await h.runCounting<{ nodes: unknown[] }, unknown>(
      `query($ids: [ID!]!, $one: ID!) { nodes(ids: $ids) { id } node(id: $one) { id } }`,
      { ids: projects(4), one: projects(5)[4] },
    );
    expect(errors).toBeUndefined();
    expect(data.nodes).toHaveLength(4);
    expect(calls).toEqual([]);
  });

  it.each([
    ['nodes', `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, (ids: string[]) => ({ ids })],
    [
      'aliased nodes',
      `query($ids: [ID!]!) { a: nodes(ids: $ids) { id } b: nodes(ids: $ids) { id } }`,
      (ids: string[]) => ({ ids: ids.slice(0, 3) }),
    ],
    [
      '_entities',
      `query($r: [_Any!]!) { _entities(representations: $r) { __typename } }`,
      (ids: string[]) => ({ r: ids.map((id) => ({ __typename: 'Project', id })) }),
    ],
  ])('refuses %s past it with QUERY_TOO_COMPLEX and no upstream call', async (_name, query, variables) => {
    const { body, calls } = await h.runCounting(query, variables(projects(6)));
    expect(body.data).toBeUndefined();
    expect(body.errors).toEqual([
      {
        message: expect.stringMatching(/^This operation looks up 6 ids; at most 5 may be looked up at once/),
        extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'maxLookupIds', lookupIds: 6, max: 5 },
      },
    ]);
    expect(calls).toEqual([]);
  });
});

describe('MAX_RESPONSE_BYTES', () => {
  let h: HttpHarness;
  beforeAll(async () => {
    h = await startHttpHarness({}, { maxResponseBytes: 2048 });
  });
  afterAll(() => h.close());
  /** Introspection: tens of KB, no upstream call. */
  const WIDE = '{ __schema { types { name description fields { name description } } } }';

  it('answers within the bound as usual', async () => {
    const { errors } = await h.run('{ organizations(first: 1) { nodes { name } } }');
    expect(errors).toBeUndefined();
  });

  it('replaces an answer past it with a typed error, over HTTP, every time', async () => {
    // The same query twice: a repeated query (parse and validation cached) is bounded as the first.
    for (const attempt of [1, 2]) {
      const response = await fetch(h.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${h.api.keys.demo}` },
        body: JSON.stringify({ query: WIDE }),
      });
      const text = await response.text();
      expect(text.length, `attempt ${attempt}`).toBeLessThan(2048);
      expect(JSON.parse(text)).toEqual({
        errors: [
          {
            message:
              'The answer is larger than 2048 bytes, the most this gateway sends: ask for fewer fields, smaller pages or fewer records.',
            extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'maxResponseBytes', maxBytes: 2048 },
          },
        ],
      });
    }
  });

  it('bounds an answer made without the compiled serializer too (errors only)', async () => {
    const { body } = await h.run(`query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, { ids: Array.from({ length: 60 }, () => 'nope') });
    expect(JSON.stringify(body).length).toBeLessThan(2048);
  });
});

describe('the reproduction: 900 references to one 45 KB id, without a key', () => {
  let h: HttpHarness;
  beforeAll(async () => {
    h = await startHttpHarness();
  });
  afterAll(() => h.close());

  it('costs under 100 KB of answer each, twelve at once, and /health answers all along', async () => {
    const id = encode(`Project:${'9'.repeat(33_000)}`); // 45 KB once encoded
    const query = `query($id: ID!) { nodes(ids: [${Array.from({ length: 900 }, () => '$id').join(', ')}]) { id ... on Project { databaseId } } }`;
    const body = JSON.stringify({ query, variables: { id } });
    expect(body.length).toBeGreaterThan(45_000);
    const attack = () =>
      fetch(h.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
        async (r) => (await r.arrayBuffer()).byteLength,
      );
    const health = async () => {
      const startedAt = performance.now();
      const response = await fetch(new URL('/health', h.url));
      await response.arrayBuffer();
      return { status: response.status, tookMs: performance.now() - startedAt };
    };
    h.api.clearRequests();
    const [sizes, during] = await Promise.all([Promise.all(Array.from({ length: 12 }, attack)), health()]);
    for (const size of sizes) expect(size).toBeLessThan(100_000);
    expect(during.status).toBe(200);
    // It stalled 2.5 s behind one such request, 31 s behind twelve.
    expect(during.tookMs).toBeLessThan(2000);
    expect(h.api.requests).toEqual([]);
  });
});
