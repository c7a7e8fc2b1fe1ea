// UPSTREAM_BUDGET: its setting, its window arithmetic, and through the gateway: a request whose
// estimate does not fit what is left is refused before any call, a reservation is settled to the
// calls really made, `x-upstream-budget: 1` reports what is left, and with Redis unreachable the
// budget is counted in this instance's memory.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitMs, windowAt } from '../../src/budget/sliding-window.ts';
import { ConfigError, loadConfig } from '../../src/config/index.ts';
import { BUDGET_UNITS, type BudgetUnit, parseUpstreamBudget } from '../../src/config/upstream-budget.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { fits } from '../../src/store/memory-store.ts';
import { postGraphQL } from '../ops/support.ts';
import { refusedUrl } from '../support/refused-url.ts';
import { sources, testGateway } from './support.ts';

const UNITS = Object.keys(BUDGET_UNITS) as BudgetUnit[];

describe('the UPSTREAM_BUDGET setting', () => {
  it('reads any set of windows, however spaced and cased, shortest first', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ per: fc.constantFrom(...UNITS), limit: fc.integer({ min: 1, max: 1_000_000_000 }) }), {
          selector: (w) => w.per,
          minLength: 1,
        }),
        fc.constantFrom('', ' ', '  '),
        fc.boolean(),
        (windows, space, upper) => {
          const text = windows
            .map(({ limit, per }) => `${space}${limit}${space}/${space}${upper ? per.toUpperCase() : per}${space}`)
            .join(',');
          const expected = windows
            .map(({ limit, per }) => ({ limit, per, windowMs: BUDGET_UNITS[per] }))
            .sort((a, b) => a.windowMs - b.windowMs);
          expect(parseUpstreamBudget(text)).toEqual(expected);
          expect(loadConfig({ UPSTREAM_BUDGET: text }).upstreamBudget).toEqual(expected);
        },
      ),
    );
  });

  it('refuses anything else with a configuration error that says what is expected', () => {
    for (const bad of [
      '480',
      '480/minutes',
      '0/minute',
      '-1/hour',
      '1.5/second',
      '480/minute,10/minute',
      '1000000001/day',
      'a/minute',
      '480/minute,',
      '/hour',
    ]) {
      expect(() => loadConfig({ UPSTREAM_BUDGET: bad }), bad).toThrow(ConfigError);
      expect(() => loadConfig({ UPSTREAM_BUDGET: bad }), bad).toThrow(/^UPSTREAM_BUDGET: /);
    }
    expect(loadConfig({}).upstreamBudget).toBeUndefined();
  });
});

describe('the sliding window', () => {
  /** A window's counts at `at`, when nothing is added after `now`: the current count moves to `previous` in the next window. */
  const countsAt = (index: number, counts: { current: number; previous: number }, atIndex: number) =>
    atIndex === index ? counts : atIndex === index + 1 ? { current: 0, previous: counts.current } : { current: 0, previous: 0 };

  it('says to wait exactly until the calls fit (if nothing else is called meanwhile), and not at all when they do', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...UNITS),
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (per, limit, current, previous, now, share) => {
          const window = { limit, per, windowMs: BUDGET_UNITS[per] };
          const amount = Math.round(share * limit);
          const check = windowAt(window, now);
          const counts = { current, previous };
          const wait = waitMs(check, counts, amount, now);
          const fitsAt = (at: number) => {
            const later = windowAt(window, at);
            return fits(later, countsAt(check.index, counts, later.index), amount);
          };
          if (fits(check, counts, amount)) {
            expect(wait).toBe(0);
          } else {
            expect(wait).toBeGreaterThan(0);
            expect(fitsAt(now + wait + 1)).toBe(true);
            if (wait > 2) expect(fitsAt(now + wait - 2)).toBe(false);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('through the gateway', () => {
  let api: ReferenceApi;
  beforeAll(async () => {
    api = await startReferenceApi();
  });
  afterAll(() => api?.close());

  const ORGS = '{ organizations(first: 2) { nodes { name } } }'; // estimate 1, one call
  const ORGS_AND_DOMAINS = '{ organizations(first: 2) { nodes { domains(first: 1) { totalCount } } } }'; // estimate 3, three calls

  it('refuses, before any upstream call, a request whose estimate does not fit what is left; reports what is left', async () => {
    const target = testGateway({ upstreamUrl: api.url, upstreamBudget: parseUpstreamBudget('4/minute') });
    try {
      const key = api.keys.demo;
      expect((await target.post(ORGS, key)).body.extensions.upstreamBudget).toEqual([{ per: 'minute', limit: 4, remaining: 3 }]);
      const spent = await target.post(ORGS_AND_DOMAINS, key);
      expect(spent.body.errors).toBeUndefined();
      expect(spent.body.extensions.upstreamBudget).toEqual([{ per: 'minute', limit: 4, remaining: 0 }]);

      const start = api.requests.length;
      const refused = await target.post(ORGS, key);
      expect(refused.body.errors).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(
            /^This key's upstream budget is used up for now: .* 0 of 4 per minute are left\. Retry after \d+ seconds?\.$/,
          ),
          extensions: { code: 'RATE_LIMITED', limit: 'upstreamBudget', retryAfter: expect.any(Number) },
        }),
      ]);
      // 4 calls this minute: one more fits once a quarter of the next minute has passed.
      expect(refused.body.errors?.[0].extensions.retryAfter).toBeGreaterThanOrEqual(15);
      expect(refused.body.errors?.[0].extensions.retryAfter).toBeLessThanOrEqual(75);
      expect(api.requests.length).toBe(start);
      const { body: metrics } = await target.gateway.metrics.render();
      expect(metrics).toMatch(/^gateway_upstream_budget_refusals_total 1$/m);

      // What makes no upstream call is not refused: introspection, and a request without a key.
      expect((await target.post('{ __typename }', key)).body).toMatchObject({ data: { __typename: 'Query' } });
      expect((await target.post(ORGS, undefined)).body.errors?.[0].extensions.code).toBe('UNAUTHENTICATED');
      // Without the header, no report.
      const plain = await postGraphQL(target.gateway.yoga.fetch, ORGS, { key: api.keys.member });
      expect(plain.body.extensions).toBeUndefined();
      expect(plain.body.data.organizations.nodes).toEqual([{ name: 'Hedgehog Analytics' }]);
    } finally {
      await target.gateway.close();
    }
  });

  it('settles a reservation to the calls really made, and refuses for good an estimate over a window’s whole limit', async () => {
    const target = testGateway({ upstreamUrl: api.url, upstreamBudget: parseUpstreamBudget('4/minute,100/hour') });
    try {
      // Estimate 1 + 5: more than the 4 a minute allows at all. Refused, with no upstream call and
      // no retryAfter (it will never fit), and nothing reserved.
      const start = api.requests.length;
      const tooLarge = await target.post('{ organizations(first: 5) { nodes { domains(first: 1) { totalCount } } } }', api.keys.readOnly);
      expect(tooLarge.body.errors).toEqual([
        expect.objectContaining({
          message:
            "This operation may make 6 upstream calls, more than this key's whole upstream budget of 4 per minute: it cannot run under it. " +
            'Ask for smaller pages, fewer nested lists or fewer records by id.',
          extensions: { code: 'RATE_LIMITED', limit: 'upstreamBudget', reason: 'OVER_WINDOW_LIMIT' },
        }),
      ]);
      expect(api.requests.length).toBe(start);
      expect(tooLarge.body.extensions.upstreamBudget).toEqual([
        { per: 'minute', limit: 4, remaining: 4 },
        { per: 'hour', limit: 100, remaining: 100 },
      ]);
      // Estimate 1 + 3, but only 2 organizations exist: 3 calls made, 3 counted.
      const response = await target.post('{ organizations(first: 3) { nodes { domains(first: 1) { totalCount } } } }', api.keys.readOnly);
      expect(response.body.errors).toBeUndefined();
      expect(response.body.extensions.upstreamBudget).toEqual([
        { per: 'minute', limit: 4, remaining: 1 },
        { per: 'hour', limit: 100, remaining: 97 },
      ]);
      // A mutation reserves 2 (the write and a possible re-read); the seed's answer carries the
      // record, so only the write is sent and counted.
      const organization = api.store.organizationsOf(1)[0]?.id as string;
      const id = Buffer.from(`BatchExport:${organization}:${api.store.batchExportsOf(organization)[0]?.id}`).toString('base64');
      const paused = await target.post(`mutation($id: ID!) { pauseBatchExport(input: { id: $id }) { __typename } }`, api.keys.demo, {
        variables: { id },
      });
      expect(paused.body.data.pauseBatchExport.__typename).toBe('PauseBatchExportPayload');
      expect(sources(paused.body)).toEqual(['upstream']);
      expect(paused.body.extensions.upstreamBudget).toEqual([
        { per: 'minute', limit: 4, remaining: 3 },
        { per: 'hour', limit: 100, remaining: 99 },
      ]);
    } finally {
      await target.gateway.close();
    }
  });

  it('never refuses a request that calls nothing, even with nothing left, and counts nothing for it', async () => {
    const target = testGateway({ upstreamUrl: api.url, upstreamBudget: parseUpstreamBudget('2/minute') });
    try {
      // Estimate 2 (the organizations, and the domains of the one asked for): 2 calls made, nothing left.
      const spent = await target.post('{ organizations(first: 1) { nodes { domains(first: 1) { totalCount } } } }', api.keys.demo);
      expect(sources(spent.body)).toHaveLength(2);
      expect(spent.body.extensions.upstreamBudget).toEqual([{ per: 'minute', limit: 2, remaining: 0 }]);
      const nothing = await target.post('{ __typename }', api.keys.demo);
      expect(nothing.body.errors).toBeUndefined();
      expect(nothing.body.data).toEqual({ __typename: 'Query' });
      expect(nothing.body.extensions.upstreamBudget).toEqual([{ per: 'minute', limit: 2, remaining: 0 }]);
      const { body: metrics } = await target.gateway.metrics.render();
      expect(metrics).toMatch(/^gateway_upstream_budget_refusals_total 0$/m);
    } finally {
      await target.gateway.close();
    }
  });

  it('with Redis unreachable from the start: starts, answers, and counts the budget in this instance', async () => {
    const nowhere = new URL(await refusedUrl());
    const target = testGateway({
      upstreamUrl: api.url,
      cache: { store: `redis://${nowhere.host}/0`, ttlMs: 60_000, timeoutMs: 50 },
      upstreamBudget: parseUpstreamBudget('2/minute'),
    });
    try {
      expect(await target.readiness()).toMatchObject({
        status: 200,
        body: { status: 'ready', cache: { store: 'redis', reachable: false } },
      });
      const answers = [await target.post(ORGS, api.keys.outsider), await target.post(ORGS, api.keys.outsider)];
      expect(answers.map((answer) => answer.body.data.organizations.nodes)).toEqual([
        [{ name: 'Elsewhere Inc' }],
        [{ name: 'Elsewhere Inc' }],
      ]);
      expect(answers.flatMap((answer) => sources(answer.body))).toEqual(['upstream', 'upstream']);
      expect((await target.post(ORGS, api.keys.outsider)).body.errors?.[0].extensions.code).toBe('RATE_LIMITED');
      expect(target.log.lines.filter((line) => line.msg.startsWith('cache store unreachable'))).toHaveLength(1);
    } finally {
      await target.gateway.close();
    }
  });
});
