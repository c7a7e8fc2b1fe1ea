// MAX_JSON_DEPTH: a free-form value nested deeper than the limit is BAD_USER_INPUT when a caller
// sends it (a variable, an inline literal: before any upstream call, and nothing logged as an
// unexpected error), and fails only its own field when the upstream sends it; so is any variable, or an
// undeclared one, nested that deep. Values 5,000 deep stand for what used to overflow the stack.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UNREPRESENTABLE_VALUE } from '../../src/errors/graphql-errors.ts';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { globalId } from '../../src/schema/global-id.ts';
import { captureLogger } from '../ops/support.ts';
import { DeepJson, deepJsonText, jsonText, sendJson, sendText } from '../support/scripted-answers.ts';

const KEY = 'phx_json_depth_key';
const ORG = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f2001';
const SURVEY = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f2002';
const ORG_ID = globalId('Organization', ORG);
const page = (...results: unknown[]) => ({ count: results.length, next: null, previous: null, results });
const organization = {
  id: ORG,
  name: 'Acme',
  teams: [{ id: 1, name: 'Web' }],
  metadata: { plan: 'free' },
  available_product_features: ['sso'],
};

let upstream: ReferenceApi;
/** The default limit (32), and a limit of 3 that small values can reach. */
let gateway: Gateway;
let shallow: Gateway;
const log = captureLogger();
/** The answers of `GET /api/organizations/<ORG>/` and of project 1's surveys (JSON text, as deep as a test wants). */
let organizationText: string;
let surveysText: string;

beforeAll(async () => {
  upstream = await startReferenceApi();
  upstream.answerWith((req, res) => {
    if (req.method === 'POST') return sendJson(res, 201, { id: 7, ...(req.body as object) });
    if (req.path === `/api/organizations/${ORG}/`) return sendText(res, 200, organizationText);
    if (req.path === '/api/organizations/') return sendJson(res, 200, page(organization));
    if (req.path === '/api/projects/1/surveys/') return sendText(res, 200, surveysText);
    return sendJson(res, 404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
  });
  gateway = createGateway({ upstreamUrl: upstream.url, logger: log.logger });
  shallow = createGateway({ upstreamUrl: upstream.url, logger: log.logger, maxJsonDepth: 3 });
});
afterAll(async () => {
  await gateway.close();
  await shallow.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
  log.lines.length = 0;
  organizationText = JSON.stringify(organization);
});

/** Posts a request body given as text: JSON.stringify could not write the deep variables. */
async function post(target: Gateway, body: string, key: string | null = KEY) {
  const response = await target.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body,
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as { data?: any; errors?: any[] } };
}

const request = (query: string, variablesText?: string) =>
  `{"query":${JSON.stringify(query)}${variablesText === undefined ? '' : `,"variables":${variablesText}`}}`;

const CREATE = `mutation($config: JSON) { createPipelineDestination(input: { organizationId: "${ORG_ID}", configSchema: $config }) {
  ... on CreatePipelineDestinationPayload { pipelineDestination { databaseId configSchema } } } }`;

function expectRefused(body: { data?: any; errors?: any[] }, maxDepth: number) {
  expect(body.errors).toHaveLength(1);
  expect(body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', limit: 'maxJsonDepth', maxDepth } });
  expect(body.errors?.[0].message).toMatch(new RegExp(`nests deeper than ${maxDepth} levels`));
  expect(upstream.requests).toEqual([]);
  expect(log.lines.filter((line) => line.level === 'error')).toEqual([]);
}

describe('a JSON value a caller sends', () => {
  it.each(['object', 'array'] as const)('nested 5,000 deep (%ss, 10 KB) in a variable is BAD_USER_INPUT, key or not', async (kind) => {
    const variables = `{"config":${deepJsonText(5000, kind)}}`;
    expect(variables.length).toBeGreaterThan(10_000);
    for (const key of [KEY, null]) {
      const { status, body } = await post(gateway, request(CREATE, variables), key);
      expect(status).toBe(200);
      expectRefused(body, 32);
    }
  });

  it('is refused one level past the limit and sent as given at the limit', async () => {
    const four = '{"a":{"b":[1,{"c":"d"}]}}'; // an object in a list in an object in an object
    expectRefused((await post(shallow, request(CREATE, `{"config":${four}}`))).body, 3);

    const three = '{"a":{"b":[1,"c"]}}';
    const { body } = await post(shallow, request(CREATE, `{"config":${three}}`));
    expect(body.errors).toBeUndefined();
    expect(body.data.createPipelineDestination.pipelineDestination.configSchema).toEqual({ a: { b: [1, 'c'] } });
    expect(upstream.requests.map((r) => [r.method, r.body])).toEqual([['POST', { config_schema: { a: { b: [1, 'c'] } } }]]);
  });

  it('is found inside an input object, a list and federation representations', async () => {
    const deep = deepJsonText(4);
    const input = `mutation($input: CreatePipelineDestinationInput!) { createPipelineDestination(input: $input) { __typename } }`;
    expectRefused((await post(shallow, request(input, `{"input":{"organizationId":"${ORG_ID}","metrics":${deep}}}`))).body, 3);
    const entities = `query($r: [_Any!]!) { _entities(representations: $r) { __typename } }`;
    expectRefused((await post(gateway, request(entities, `{"r":[{"__typename":"Organization","id":${deepJsonText(5000)}}]}`))).body, 32);
    // A single value where a list is expected stands for a list of one.
    expectRefused((await post(gateway, request(entities, `{"r":{"__typename":"Organization","id":${deepJsonText(5000)}}}`))).body, 32);
  });

  it('as an inline literal is refused before validation walks it, with its location', async () => {
    const literal = `mutation { createPipelineDestination(input: { organizationId: "${ORG_ID}", configSchema: {a: {b: [[1]]}} }) { __typename } }`;
    const { body } = await post(shallow, request(literal));
    expectRefused(body, 3);
    expect(body.errors?.[0].locations).toEqual([{ line: 1, column: literal.indexOf('{a:') + 1 }]);
    // Validation results are cached per document: the cached answer is the same refusal.
    expectRefused((await post(shallow, request(literal))).body, 3);
    expect(log.lines.filter((line) => line.level === 'error')).toEqual([]);
  });

  it('as deep a literal as the token limit lets through is refused too, as a default value or an entity', async () => {
    const nested = (depth: number) => `${'{a: '.repeat(depth)}1${' }'.repeat(depth)}`;
    expectRefused((await post(gateway, request(`query($c: JSON = ${nested(400)}) { __typename }`))).body, 32);
    expectRefused((await post(gateway, request(`{ _entities(representations: [${nested(400)}]) { __typename } }`))).body, 32);
  });

  it('deep where no JSON is expected (a list of IDs, a UUID, an unknown field) is BAD_USER_INPUT too, nothing logged', async () => {
    const deep = deepJsonText(5000, 'array');
    for (const [query, variables] of [
      ['query($ids: [ID!]!) { nodes(ids: $ids) { id } }', `{"ids":${deep}}`],
      ['query($id: UUID!) { organization(databaseId: $id) { id } }', `{"id":${deep}}`],
      [
        'mutation($input: CreatePipelineDestinationInput!) { createPipelineDestination(input: $input) { __typename } }',
        `{"input":{"unknown":${deep}}}`,
      ],
    ] as const)
      expectRefused((await post(gateway, request(query, variables))).body, 32);
  });

  it('an undeclared variable nested past the limit is BAD_USER_INPUT, also on a mutation with an Idempotency-Key', async () => {
    expectRefused((await post(gateway, request('{ organizations { totalCount } }', `{"unused":${deepJsonText(5000)}}`))).body, 32);
    const mutation = `{"query":"mutation { deletePipelineDestination(input: { id: \\"x\\" }) { __typename } }","variables":{"junk":${deepJsonText(40_000, 'array')}}}`;
    const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, 'idempotency-key': 'deep-1' },
      body: mutation,
    });
    expectRefused(await response.json(), 32);
    // Exactly at the limit it is ignored, as GraphQL ignores every undeclared variable.
    const { body } = await post(shallow, request('{ organizations { totalCount } }', `{"unused":${deepJsonText(3)}}`));
    expect(body).toEqual({ data: { organizations: { totalCount: 1 } } });
  });
});

describe('a JSON literal in the operation', () => {
  const create = (literal: string, variables = '') =>
    `mutation${variables} { createPipelineDestination(input: { organizationId: "${ORG_ID}", configSchema: ${literal} }) { __typename } }`;

  it('is sent as written', async () => {
    const { body } = await post(gateway, request(create('{a: [1, "two", {b: null}], c: true}')));
    expect(body.errors).toBeUndefined();
    expect(upstream.requests.map((r) => r.body)).toEqual([{ config_schema: { a: [1, 'two', { b: null }], c: true } }]);
  });

  it('holding a variable is BAD_USER_INPUT: the variable would be left out of the write', async () => {
    const { body } = await post(gateway, request(create('{a: $x, b: 1}', '($x: String)'), '{"x":"hello"}'));
    expect(body.errors).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/cannot hold a variable/), extensions: { code: 'BAD_USER_INPUT' } }),
    ]);
    expect(upstream.requests).toEqual([]);
  });
});

describe('a JSON value the upstream sends', () => {
  const QUERY = `{ organization(databaseId: "${ORG}") { name metadata teams availableProductFeatures projects { databaseId } } }`;

  it.each(['object', 'array'] as const)(
    'nested 5,000 deep (%ss) fails only its field: the record and its other fields resolve',
    async (kind) => {
      organizationText = jsonText({ ...organization, metadata: new DeepJson(5000, kind) });
      const { status, body } = await post(gateway, request(QUERY));
      expect(status).toBe(200);
      expect(body.data).toEqual({
        organization: {
          name: 'Acme',
          metadata: null,
          teams: [{ id: 1, name: 'Web' }],
          availableProductFeatures: ['sso'],
          projects: [{ databaseId: '1' }],
        },
      });
      expect(body.errors).toEqual([
        { message: UNREPRESENTABLE_VALUE, path: ['organization', 'metadata'], extensions: { code: 'UPSTREAM_ERROR' } },
      ]);
      expect(log.lines.filter((line) => line.level === 'error')).toEqual([]);
    },
  );

  it('in one item of a JSON list fails only that item', async () => {
    organizationText = jsonText({
      ...organization,
      teams: [
        { id: 1, name: 'Web', x: new DeepJson(5000) },
        { id: 2, name: 'Mobile' },
      ],
    });
    const { body } = await post(gateway, request(QUERY));
    expect(body.data.organization).toMatchObject({
      name: 'Acme',
      teams: [null, { id: 2, name: 'Mobile' }],
      projects: [{ databaseId: '1' }, { databaseId: '2' }],
    });
    expect(body.errors).toEqual([
      { message: UNREPRESENTABLE_VALUE, path: ['organization', 'teams', 0], extensions: { code: 'UPSTREAM_ERROR' } },
    ]);
  });

  it('is served up to the limit and refused one level past it', async () => {
    organizationText = jsonText({
      ...organization,
      metadata: { a: { b: [1] } },
      available_product_features: [{ a: { b: [{}] } }, { a: 1 }],
    });
    const { body } = await post(shallow, request(QUERY));
    expect(body.data.organization).toMatchObject({ metadata: { a: { b: [1] } }, availableProductFeatures: [null, { a: 1 }] });
    expect(body.errors?.map((error) => error.path)).toEqual([['organization', 'availableProductFeatures', 0]]);
  });
});

describe('a list page with a deep JSON value', () => {
  it('fails only that field of that record', async () => {
    const survey = { id: SURVEY, name: 'NPS', questions: new DeepJson(5000, 'array'), appearance: { color: 'red' } };
    surveysText = jsonText(page(survey, { ...survey, questions: [{ type: 'open' }] }));
    const { body } = await post(gateway, request('{ project(databaseId: "1") { surveys { nodes { name questions appearance } } } }'));
    expect(body.data.project.surveys.nodes).toEqual([
      { name: 'NPS', questions: null, appearance: { color: 'red' } },
      { name: 'NPS', questions: [{ type: 'open' }], appearance: { color: 'red' } },
    ]);
    expect(body.errors?.map((error) => [error.path, error.extensions.code])).toEqual([
      [['project', 'surveys', 'nodes', 0, 'questions'], 'UPSTREAM_ERROR'],
    ]);
  });
});
