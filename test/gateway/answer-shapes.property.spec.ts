// Property: whatever JSON value the upstream puts anywhere in a record or a list page (a wrong type,
// null, a missing key, a value nested 5,000 deep, a string carrying a marker), the gateway answers
// JSON with the data of every part the value did not touch (a record of another organization, the
// list it did not break), every error carries a code of the contract, and no error message quotes
// the marker.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { globalId } from '../../src/schema/global-id.ts';
import { DeepJson, type FakeUpstream, jsonText, sendJson, sendText, startFakeUpstream } from '../support/fake-upstream.ts';

const KEY = 'phx_answer_shapes_property_key';
const ORG = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f1001';
const OTHER_ORG = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f1002';
const EXPORT = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f1003';
const RUN = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f1004';
const MEMBER = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f1005';
const USER = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f1006';
const MARKERS = ['LEAK', '../../x'];
/** The codes the contract lets an error carry. */
const CONTRACT_CODES = [
  'UNAUTHENTICATED', 'FORBIDDEN', 'NOT_FOUND', 'RATE_LIMITED', 'UPSTREAM_ERROR', 'UPSTREAM_TIMEOUT', 'BAD_USER_INPUT',
  'QUERY_TOO_COMPLEX', 'OVERLOADED', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_UNAVAILABLE',
];

const page = (...results: unknown[]) => ({ count: results.length, next: null, previous: null, results });
const organization = (id: string, name: string) => ({
  id,
  name,
  slug: name.toLowerCase(),
  created_at: '2026-01-05T10:00:00.123456Z',
  membership_level: 15,
  member_count: '2',
  teams: [{ id: 1, project_id: 1, name: 'Web' }, { id: 2, name: 'Mobile' }],
  available_product_features: [{ key: 'sso' }],
  metadata: { plan: 'free' },
  enforce_2fa: null,
});
const batchExport = {
  id: EXPORT,
  team_id: 1,
  name: 'S3 export',
  paused: false,
  interval: 'hour',
  created_at: '2026-01-05T10:00:00Z',
  schema: null,
  destination: { type: 'S3', config: { bucket: 'b' } },
  latest_runs: [{ id: RUN, status: 'Completed', records_completed: 10, created_at: '2026-01-05T11:00:00Z', batch_export: EXPORT }],
};
const member = {
  id: MEMBER,
  level: 8,
  joined_at: '2026-01-05T10:00:00Z',
  user: { id: 3, uuid: USER, email: 'ann@acme.example', first_name: 'Ann', hedgehog_config: { color: 'blue' } },
};

/** The upstream answers the property may break, by path. */
const TARGETS = {
  organization: [`/api/organizations/${ORG}/`, organization(ORG, 'Acme')],
  batchExports: [`/api/organizations/${ORG}/batch_exports/`, page(batchExport, { ...batchExport, name: 'Second' })],
  members: [`/api/organizations/${ORG}/members/`, page(member)],
} as const;
type Target = keyof typeof TARGETS;

const QUERY = `{
  a: organization(databaseId: "${ORG}") {
    id databaseId name slug createdAt membershipLevel memberCount metadata teams availableProductFeatures enforce2fa
    projects { id databaseId name }
    batchExports { totalCount pageInfo { hasNextPage } nodes {
      id databaseId teamId name paused interval createdAt schema destination { type config }
      latestRuns { id databaseId status recordsCompleted createdAt batchExport } } }
    members { totalCount nodes { id databaseId level joinedAt user { databaseId uuid email firstName hedgehogConfig } } }
  }
  b: node(id: "${globalId('BatchExport', OTHER_ORG, EXPORT)}") { id ... on BatchExport { name destination { type } latestRuns { databaseId } } }
}`;

/** Values to put in the answer: any JSON, markers, edge numbers, and values nested far deeper than any limit. */
const anyValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(...MARKERS),
  fc.string().map((text) => `${MARKERS[text.length % MARKERS.length]}${text}`),
  fc.constantFrom(null, -5, 1.5, 2 ** 31, 1e300, '', {}, [], { LEAK: '../../x' }),
  fc.constantFrom(new DeepJson(5000), new DeepJson(5000, 'array'), new DeepJson(33)),
  fc.constant(undefined), // the key is left out (a list item becomes null)
);

/** Every place in a JSON value, as key paths; the empty path is the whole value. */
function placesIn(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  const places = [path];
  if (Array.isArray(value)) value.forEach((item, i) => places.push(...placesIn(item, [...path, i])));
  else if (value && typeof value === 'object') for (const [key, inner] of Object.entries(value)) places.push(...placesIn(inner, [...path, key]));
  return places;
}

function replaced(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  const copy: any = Array.isArray(value) ? [...value] : { ...(value as object) };
  copy[head] = replaced(copy[head], rest, replacement);
  return copy;
}

let upstream: FakeUpstream;
let gateway: Gateway;
let answers: Map<string, unknown>;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  upstream.handle((req, res) => {
    if (!answers.has(req.path)) return sendJson(res, 404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
    const answer = answers.get(req.path);
    return answer === undefined ? sendText(res, 200, '') : sendText(res, 200, jsonText(answer));
  });
  // Each run stands alone: the breaker must not carry one run's failures into the next.
  gateway = createGateway({ upstreamUrl: upstream.url, upstreamGetRetries: 0, circuitBreaker: { volumeThreshold: 1_000_000 } });
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

async function runWith(target?: Target, place?: (string | number)[], replacement?: unknown) {
  answers = new Map<string, unknown>([
    [`/api/organizations/${OTHER_ORG}/batch_exports/${EXPORT}/`, batchExport],
    ...Object.values(TARGETS).map(([path, answer]) => [path, answer] as [string, unknown]),
  ]);
  if (target && place) answers.set(TARGETS[target][0], replaced(TARGETS[target][1], place, replacement));
  const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ query: QUERY }),
  });
  return { status: response.status, body: JSON.parse(await response.text()) as { data?: any; errors?: any[] } };
}

describe('any value anywhere in an upstream answer', () => {
  it('fails only what it touches, with a contract code and nothing of it quoted', async () => {
    const baseline = await runWith();
    expect(baseline.body.errors).toBeUndefined();
    expect(baseline.body.data.a.batchExports.nodes).toHaveLength(2);
    expect(baseline.body.data.b.name).toBe('S3 export');

    const breakage = fc
      .constantFrom<Target>('organization', 'batchExports', 'members')
      .chain((target) =>
        fc.record({
          target: fc.constant(target),
          place: fc.constantFrom(...placesIn(TARGETS[target][1])),
          replacement: anyValue,
        }),
      );

    await fc.assert(
      fc.asyncProperty(breakage, async ({ target, place, replacement }) => {
        const { status, body } = await runWith(target, place, replacement);
        expect(status).toBe(200);
        expect(body.data).toBeTypeOf('object');
        expect(body.data.b).toEqual(baseline.body.data.b);
        // The organization's record is intact when a list was broken: the other list is untouched.
        if (target === 'batchExports') expect(body.data.a.members).toEqual(baseline.body.data.a.members);
        if (target === 'members') expect(body.data.a.batchExports).toEqual(baseline.body.data.a.batchExports);
        for (const error of body.errors ?? []) {
          expect(CONTRACT_CODES).toContain(error.extensions?.code);
          for (const marker of MARKERS) expect(error.message).not.toContain(marker);
        }
      }),
      { numRuns: 200 },
    );
  });
});
