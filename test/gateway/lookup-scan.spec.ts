// Invites and members have no REST retrieve: a lookup pages through the organization's list, several
// ids in one scan, and never past MAX_LOOKUP_SCAN_PAGES pages. The first page tells `count`; the
// other pages within the bound go out together. A record past the bound is an error, not a null.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { globalId } from '../../src/schema/global-id.ts';
import { sendJson } from '../support/scripted-answers.ts';

const ORG = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0001';
const MEMBERS = `/api/organizations/${ORG}/members/`;
const INVITES = `/api/organizations/${ORG}/invites/`;
const uuid = (prefix: number, i: number) => `00000000-0000-4000-${8000 + prefix}-${String(i).padStart(12, '0')}`;
/** The member at position `i` of the list, and its global id. */
const member = (i: number) => ({ id: uuid(1, i), level: 1, user: { id: i, uuid: uuid(2, i), email: `m${i}@acme.example` } });
const memberId = (i: number) => globalId('Member', ORG, uuid(1, i), uuid(2, i));
const invite = (i: number) => ({ id: uuid(3, i), target_email: `i${i}@acme.example`, level: 1 });
const inviteId = (i: number) => globalId('Invite', ORG, uuid(3, i));

const NODE = `query($id: ID!) { node(id: $id) { id ... on Member { user { email } } } }`;
const NODES = `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`;

interface ListOptions {
  /** What `count` says. */
  count: number;
  /** A server-side page cap. */
  cap?: number;
  /** Offsets whose page answers 500. */
  failing?: number[];
  /** Hold pages after the first until this many are in flight (or 2 s passed). */
  together?: number;
}

let upstream: ReferenceApi;
let gateway: Gateway;
let bounded: Gateway;

beforeAll(async () => {
  upstream = await startReferenceApi();
  gateway = createGateway({ upstreamUrl: upstream.url, upstreamGetRetries: 0 });
  bounded = createGateway({ upstreamUrl: upstream.url, upstreamGetRetries: 0, maxLookupScanPages: 3 });
});
afterAll(async () => {
  await gateway.close();
  await bounded.close();
  await upstream.close();
});
beforeEach(() => {
  upstream.requests.length = 0;
});

/** Serves the members and invites lists as `options` says; returns the most pages seen in flight at once. */
function serveLists({ count, cap = 100, failing = [], together = 1 }: ListOptions) {
  const seen = { inFlight: 0, most: 0 };
  const held: (() => void)[] = [];
  upstream.answerWith(async (req, res) => {
    const limit = Math.min(Number(req.query.limit), cap);
    const offset = Number(req.query.offset);
    seen.inFlight += 1;
    seen.most = Math.max(seen.most, seen.inFlight);
    if (offset > 0 && together > 1) {
      await new Promise<void>((resolve) => {
        held.push(resolve);
        if (held.length >= together) for (const release of held.splice(0)) release();
        else setTimeout(resolve, 2000);
      });
    }
    seen.inFlight -= 1;
    if (failing.includes(offset)) return sendJson(res, 500, { type: 'server_error', code: 'error', detail: 'Failed.', attr: null });
    const make = req.path === MEMBERS ? member : invite;
    const results = Array.from({ length: Math.max(0, Math.min(limit, count - offset)) }, (_, i) => make(offset + i));
    sendJson(res, 200, { count, next: null, previous: null, results });
  });
  return seen;
}

async function run(query: string, variables: Record<string, unknown>, via = gateway) {
  const response = await via.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer phx_scan' },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: any; errors?: any[] };
}

const offsets = () => upstream.requests.map((r) => [r.method, r.path, r.query]);
const pagesAt = (path: string, ...at: number[]) => at.map((offset) => ['GET', path, { limit: '100', offset: String(offset) }]);
const sortedOffsets = () => offsets().sort((a, b) => Number((a[2] as any).offset) - Number((b[2] as any).offset));
const firstTen = [0, 100, 200, 300, 400, 500, 600, 700, 800, 900];

describe('a lookup of a member', () => {
  it('in a list whose count says 1,000,000 makes 10 calls, then fails with QUERY_TOO_COMPLEX naming the setting', async () => {
    serveLists({ count: 1_000_000 });
    const { data, errors } = await run(NODE, { id: memberId(5000) });
    expect(data).toEqual({ node: null });
    expect(errors).toEqual([
      expect.objectContaining({
        path: ['node'],
        message: expect.stringContaining('not among the first 1000 of its list'),
        extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'maxLookupScanPages', maxLookupScanPages: 10 },
      }),
    ]);
    expect(sortedOffsets()).toEqual(pagesAt(MEMBERS, ...firstTen));
  });

  it('within the bound resolves, its pages after the first sent together (two round trips)', async () => {
    const seen = serveLists({ count: 1_000_000, together: 9 });
    const started = performance.now();
    const { data, errors } = await run(NODE, { id: memberId(450) });
    expect(errors).toBeUndefined();
    expect(data).toEqual({ node: { id: memberId(450), user: { email: 'm450@acme.example' } } });
    expect(seen.most).toBe(9);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(offsets()[0]).toEqual(pagesAt(MEMBERS, 0)[0]);
    expect(sortedOffsets()).toEqual(pagesAt(MEMBERS, ...firstTen));
  });

  it('on the first page costs that page alone', async () => {
    serveLists({ count: 1_000_000 });
    const { data, errors } = await run(NODES, { ids: [memberId(42), memberId(7), memberId(42)] });
    expect(errors).toBeUndefined();
    expect(data.nodes.map((n: { id: string }) => n.id)).toEqual([memberId(42), memberId(7), memberId(42)]);
    expect(offsets()).toEqual(pagesAt(MEMBERS, 0));
  });

  it('absent from a list the scan saw whole is null, without an error', async () => {
    serveLists({ count: 250 });
    const { data, errors } = await run(NODE, { id: memberId(9999) });
    expect(errors).toBeUndefined();
    expect(data).toEqual({ node: null });
    expect(sortedOffsets()).toEqual(pagesAt(MEMBERS, 0, 100, 200));
  });

  it('under a server-side page cap steps by the pages the upstream really sends, within the same number of calls', async () => {
    serveLists({ count: 1_000_000, cap: 40 });
    const found = await run(NODE, { id: memberId(390) });
    expect(found.errors).toBeUndefined();
    expect(found.data.node.id).toBe(memberId(390));
    expect(sortedOffsets()).toEqual(pagesAt(MEMBERS, ...Array.from({ length: 10 }, (_, i) => i * 40)));

    upstream.requests.length = 0;
    const beyond = await run(NODE, { id: memberId(400) });
    expect(beyond.errors?.[0]?.message).toContain('not among the first 400 of its list');
    expect(upstream.requests).toHaveLength(10);
  });

  it('fails only the records a failed page could hold: those found on other pages resolve', async () => {
    serveLists({ count: 1000, failing: [500] });
    const { data, errors } = await run(NODES, { ids: [memberId(150), memberId(550), memberId(5000)] });
    expect(data.nodes).toEqual([{ id: memberId(150) }, null, null]);
    expect(errors?.map((e) => [e.path, e.extensions.code, e.extensions.upstreamStatus]).sort()).toEqual([
      [['nodes', 1], 'UPSTREAM_ERROR', 500],
      [['nodes', 2], 'UPSTREAM_ERROR', 500],
    ]);
    expect(upstream.requests).toHaveLength(10);
  });

  it('scans members and invites of one organization once each, for all the ids asked', async () => {
    serveLists({ count: 1000 });
    const ids = [memberId(10), inviteId(20), memberId(310), inviteId(30), memberId(10)];
    const { data, errors } = await run(NODES, { ids });
    expect(errors).toBeUndefined();
    expect(data.nodes.map((n: { id: string }) => n.id)).toEqual(ids);
    // Invites: all found on the first page. Members: the id at 310 needs the rest within the bound.
    expect(offsets().filter((r) => r[1] === INVITES)).toEqual(pagesAt(INVITES, 0));
    expect(
      offsets()
        .filter((r) => r[1] === MEMBERS)
        .sort((a, b) => Number((a[2] as any).offset) - Number((b[2] as any).offset)),
    ).toEqual(pagesAt(MEMBERS, ...firstTen));
  });

  it('follows MAX_LOOKUP_SCAN_PAGES', async () => {
    serveLists({ count: 1_000_000 });
    const { errors } = await run(NODE, { id: memberId(300) }, bounded);
    expect(errors?.[0]?.extensions).toEqual({ code: 'QUERY_TOO_COMPLEX', limit: 'maxLookupScanPages', maxLookupScanPages: 3 });
    expect(sortedOffsets()).toEqual(pagesAt(MEMBERS, 0, 100, 200));
  });
});

describe('MAX_LOOKUP_SCAN_PAGES', () => {
  it('defaults to 10 and takes a whole number from 1', () => {
    expect(loadConfig({}).maxLookupScanPages).toBe(10);
    expect(loadConfig({ MAX_LOOKUP_SCAN_PAGES: '25' }).maxLookupScanPages).toBe(25);
    for (const bad of ['0', '-1', '2.5', 'ten']) expect(() => loadConfig({ MAX_LOOKUP_SCAN_PAGES: bad })).toThrow(ConfigError);
  });
});
