// Introspection is no free amplifier: copies of the schema (aliases), deep `ofType` chains, nested
// introspection lists and many `__type` lookups are refused with QUERY_TOO_COMPLEX naming the
// limit, while the standard introspection query that GraphiQL, graphql-codegen and Hive/Apollo
// tooling send passes and answers the whole schema.
import fc from 'fast-check';
import { buildClientSchema, getIntrospectionQuery, type IntrospectionQuery } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from '../support/harness.ts';
import { type HttpHarness, startHttpHarness } from '../support/http-server.ts';

let h: HttpHarness;
beforeAll(async () => {
  h = await startHttpHarness();
});
afterAll(() => h.close());

/** Over HTTP, without a key (introspection needs none), asking for the GraphQL response media type. */
async function introspect(query: string) {
  const response = await fetch(h.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query }),
  });
  const text = await response.text();
  return { status: response.status, size: text.length, body: JSON.parse(text) as { data?: any; errors?: any[] } };
}

async function expectRefused(query: string, limit: string) {
  const { status, size, body } = await introspect(query);
  expect(body.data).toBeUndefined();
  expect(body.errors?.map((error) => error.extensions)).toContainEqual(expect.objectContaining({ code: 'QUERY_TOO_COMPLEX', limit }));
  expect(status).toBe(400);
  expect(size).toBeLessThan(2000);
}

const ofTypeChain = (depth: number) => {
  let selection = 'name';
  for (let i = 0; i < depth; i++) selection = `kind ofType { ${selection} }`;
  return selection;
};

describe('the standard introspection query', () => {
  it.each([
    ['as graphql-js writes it by default', {}],
    // What GraphiQL and graphql-codegen's URL loader ask for, and every other option.
    [
      'with every option on',
      {
        descriptions: true,
        specifiedByUrl: true,
        directiveIsRepeatable: true,
        schemaDescription: true,
        inputValueDeprecation: true,
        oneOf: true,
      },
    ],
  ])('passes %s, answering the whole schema with no upstream call', async (_name, options) => {
    h.api.clearRequests();
    const { status, body } = await introspect(getIntrospectionQuery(options));
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    const schema = buildClientSchema(body.data as IntrospectionQuery);
    expect(schema.getType('Organization')).toBeDefined();
    expect(Object.keys(schema.getTypeMap()).length).toBeGreaterThan(100);
    expect(h.api.requests).toHaveLength(0);
  });

  it('is 15 deep: MAX_INTROSPECTION_DEPTH 15 passes it, 14 refuses it', async () => {
    const at = async (maxIntrospectionDepth: number) => {
      const local = await startHarness({ demoData: false }, { queryLimits: { maxIntrospectionDepth } });
      try {
        return (await local.run(getIntrospectionQuery(), undefined, { key: null })).errors;
      } finally {
        await local.close();
      }
    };
    expect(await at(15)).toBeUndefined();
    expect((await at(14))?.[0]).toMatchObject({
      message: 'Introspection depth limit of 14 exceeded, found 15.',
      extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'maxIntrospectionDepth' },
    });
  });
});

describe('introspection that would amplify', () => {
  it('refuses 15 aliased `__schema` selections (2 KB that answered 1.4 MB), and any number from 2', async () => {
    const copies = (n: number) =>
      `{ ${Array.from({ length: n }, (_, i) => `s${i}: __schema { types { name fields { name type { name } } } }`).join(' ')} }`;
    expect(copies(15).length).toBeLessThan(2100);
    await expectRefused(copies(15), 'maxIntrospectionSchemas');
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 14 }), fc.boolean(), async (n, oneUnaliased) => {
        await expectRefused(oneUnaliased ? copies(n).replace('s0: __schema', '__schema') : copies(n), 'maxIntrospectionSchemas');
      }),
      { numRuns: 15 },
    );
  });

  it('refuses an `ofType` chain deeper than MAX_INTROSPECTION_DEPTH (20), and runs one within it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 60 }), async (depth) => {
        // __schema(1) types(2) fields(3) type(4), then the chain: `depth` ofTypes and the leaf name.
        const query = `{ __schema { types { fields { type { ${ofTypeChain(depth)} } } } } }`;
        if (4 + depth + 1 > 20) return expectRefused(query, 'maxIntrospectionDepth');
        const { status, body } = await introspect(query);
        expect(status).toBe(200);
        expect(body.errors).toBeUndefined();
      }),
      { numRuns: 30 },
    );
    // Through fragments (as the standard query's TypeRef does) the depth is the same.
    await expectRefused(
      `{ __schema { types { ...Deep } } } fragment Deep on __Type { fields { type { ${ofTypeChain(30)} } } }`,
      'maxIntrospectionDepth',
    );
    // `__type` selections also count against MAX_DEPTH (12), which GraphQL Armor only waives for `__schema`.
    const { body } = await introspect(`{ __type(name: "Organization") { ${ofTypeChain(30)} } }`);
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxDepth' });
  });

  it('refuses an alias anywhere inside `__schema` or `__type`: it only repeats part of the schema', async () => {
    const places = [
      (alias: string) => `{ __schema { ${alias}: types { name } types { name } } }`,
      (alias: string) => `{ __schema { types { name ${alias}: fields { name } } } }`,
      (alias: string) => `{ __type(name: "Organization") { fields { ${alias}: type { name } } } }`,
      (alias: string) => `{ __schema { types { ...T } } } fragment T on __Type { ${alias}: name }`,
    ];
    const alias = fc
      .tuple(fc.constantFrom(...'abcXYZ_'), fc.string({ unit: fc.constantFrom(...'abc019_'), maxLength: 10 }))
      .map(([a, b]) => a + b);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...places), alias, async (place, name) => expectRefused(place(name), 'introspectionAliases')),
      { numRuns: 20 },
    );
    // An alias on `__type` itself names one lookup: several are fine, up to MAX_INTROSPECTION_TYPES.
    const { status, body } = await introspect(
      '{ org: __type(name: "Organization") { name } run: __type(name: "BatchExportRun") { name } }',
    );
    expect(status).toBe(200);
    expect(body.data).toEqual({ org: { name: 'Organization' }, run: { name: 'BatchExportRun' } });
  });

  it('refuses more `__type` selections than MAX_INTROSPECTION_TYPES (10)', async () => {
    const lookups = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `t${i}: __type(name: "Organization") { name }`).join(' ')} }`;
    expect((await introspect(lookups(10))).body.errors).toBeUndefined();
    await expectRefused(lookups(11), 'maxIntrospectionTypes');
  });

  it('refuses introspection lists nested three deep (graphql-js MaxIntrospectionDepthRule), with the same code', async () => {
    await expectRefused('{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }', 'maxIntrospectionListDepth');
    await expectRefused(
      '{ __type(name: "Organization") { fields { type { interfaces { possibleTypes { name } } } } } }',
      'maxIntrospectionListDepth',
    );
  });

  it('measures fragments once: a document that doubles at every fragment is refused at once', async () => {
    const fragments = Array.from(
      { length: 40 },
      (_, i) => `fragment F${i} on __Type { ofType { ...F${i + 1} } possibleTypes { ...F${i + 1} } }`,
    );
    const query = `{ __schema { types { ...F0 } } } ${fragments.join(' ')} fragment F40 on __Type { name }`;
    const started = performance.now();
    await expectRefused(query, 'maxIntrospectionDepth');
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
