// `x-cost: 1` adds `extensions.cost { estimated, actual, max }` (contract: Cost directives,
// Reporting): the fan-out estimate, the upstream requests the request really sent (each attempt of a
// retried call; nothing for a cache hit or a refusal), and MAX_UPSTREAM_CALLS. Without the header
// there is none. `actual` is checked against the requests the upstream recorded.
import { afterAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway.ts';
import { startReferenceApi } from '../../src/reference-api/index.ts';
import { startHarness } from '../support/harness.ts';
import { startHttpHarness } from '../support/http-server.ts';
import { UNKNOWN_UUID } from '../support/ids.ts';
import { sendJson } from '../support/scripted-answers.ts';
import { captureLogger } from './support.ts';

const MAX = 60;
const COST = { 'x-cost': '1' };
/** 1 call for the organizations, 1 per organization (2 in the demo data) for its batch exports. */
const QUERY = '{ organizations(first: 2) { nodes { name batchExports(first: 1) { totalCount } } } }';
/** 1 + 50 × 2: over a budget of 60. */
const OVER = '{ organizations(first: 50) { nodes { batchExports { totalCount } domains { totalCount } } } }';

const harness = await startHttpHarness({}, { logger: captureLogger().logger, maxUpstreamCalls: MAX });
const cached = await startHarness({}, { logger: captureLogger().logger, cache: { store: 'memory' } });

afterAll(async () => {
  await harness.close();
  await cached.close();
});

const costOf = (body: { extensions?: Record<string, unknown> }) => body.extensions?.cost;

describe('x-cost: 1', () => {
  it('reports the estimate, the upstream requests sent (as the upstream saw them) and MAX_UPSTREAM_CALLS', async () => {
    const result = await harness.runCounting(QUERY, undefined, { headers: COST });
    expect(result.errors).toBeUndefined();
    expect(result.calls).toHaveLength(3);
    expect(costOf(result.body)).toEqual({ estimated: 3, actual: result.calls.length, max: MAX });
  });

  it('is absent without the header, or with another value', async () => {
    expect((await harness.run(QUERY)).body.extensions).toBeUndefined();
    expect((await harness.run(QUERY, undefined, { headers: { 'x-cost': 'yes' } })).body.extensions).toBeUndefined();
  });

  it('reports a refusal by the fan-out budget: its estimate, no request sent', async () => {
    const result = await harness.runCounting(OVER, undefined, { headers: COST });
    expect(result.errors?.map((e) => e.extensions?.code)).toEqual(['QUERY_TOO_COMPLEX']);
    expect(result.errors?.[0]?.extensions).toMatchObject({ limit: 'maxUpstreamCalls', estimate: 101 });
    expect(costOf(result.body)).toEqual({ estimated: 101, actual: 0, max: MAX });
    expect(result.calls).toEqual([]);
  });

  it('reports an operation refused before its estimate (validation) as 0 and 0', async () => {
    const result = await harness.runCounting('{ organizations { nope } }', undefined, { headers: COST });
    expect(result.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(costOf(result.body)).toEqual({ estimated: 0, actual: 0, max: MAX });
    expect(result.calls).toEqual([]);
  });

  it('counts nothing sent for a caller without a key', async () => {
    const result = await harness.runCounting(QUERY, undefined, { key: null, headers: COST });
    expect(result.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(costOf(result.body)).toEqual({ estimated: 3, actual: 0, max: MAX });
    expect(result.calls).toEqual([]);
  });

  it('is reported over HTTP for a query sent again', async () => {
    const send = (headers: Record<string, string>) =>
      fetch(harness.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${harness.api.keys.demo}`, ...headers },
        body: JSON.stringify({ query: QUERY }),
      }).then((response) => response.json() as Promise<{ extensions?: Record<string, unknown> }>);
    expect(costOf(await send({}))).toBeUndefined();
    harness.api.clearRequests();
    expect(costOf(await send(COST))).toEqual({ estimated: 3, actual: 3, max: MAX });
    expect(harness.api.requests).toHaveLength(3);
  });

  it('counts a cache hit as 0', async () => {
    const first = await cached.runCounting(QUERY, undefined, { headers: COST });
    expect(costOf(first.body)).toEqual({ estimated: 3, actual: 3, max: 250 });
    const again = await cached.runCounting(QUERY, undefined, { headers: COST });
    expect(again.data).toEqual(first.data);
    expect(again.calls).toEqual([]);
    expect(costOf(again.body)).toEqual({ estimated: 3, actual: 0, max: 250 });
  });

  it('counts each attempt of a retried GET', async () => {
    const upstream = await startReferenceApi();
    const gateway = createGateway({ upstreamUrl: upstream.url, logger: captureLogger().logger });
    try {
      let answered = 0;
      upstream.answerWith((_req, res) =>
        answered++ === 0 ? sendJson(res, 503, { detail: 'down' }) : sendJson(res, 200, { id: UNKNOWN_UUID, name: 'Org', teams: [] }),
      );
      const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer k', ...COST },
        body: JSON.stringify({ query: `{ organization(databaseId: "${UNKNOWN_UUID}") { name } }` }),
      });
      const body = (await response.json()) as { data?: unknown; extensions?: Record<string, unknown> };
      expect(body.data).toEqual({ organization: { name: 'Org' } });
      expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        `GET /api/organizations/${UNKNOWN_UUID}/`,
        `GET /api/organizations/${UNKNOWN_UUID}/`,
      ]);
      expect(costOf(body)).toEqual({ estimated: 1, actual: 2, max: 250 });
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });
});
