// Subscriptions over SSE (contract: Subscriptions), through HTTP against the reference API: one shared
// poll per key and record, the first event is the current state, then only changes of the selected
// data; mutations through the gateway push at once; disconnecting stops the poll; no key, the
// limits, a record that disappears (a batch export, a domain, an organization whose members are
// watched, deleted or unknown) and SIGTERM.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gracefulShutdown } from '../../src/http/shutdown.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { USER_IDS } from '../../src/reference-api/demo-users.ts';
import { globalId } from '../../src/schema/global-id.ts';
import { DEFAULTS } from '../support/defaults.ts';
import { type HttpHarness, startHttpHarness } from '../support/http-server.ts';
import { metricValue } from '../support/metrics.ts';
import { type SseSubscription, subscribe } from '../support/sse.ts';

const POLL_MS = 250;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const WATCH_EXPORT = 'subscription ($id: ID!) { batchExport(id: $id) { id name paused latestRuns { status } } }';
const WATCH_PAUSED = 'subscription ($id: ID!) { batchExport(id: $id) { paused } }';
const WATCH_NAME = 'subscription ($id: ID!) { batchExport(id: $id) { name } }';

let h: HttpHarness;
let exportIds: string[];
let organizationId: string;
const open: SseSubscription[] = [];

async function watch(query: Parameters<typeof subscribe>[1], variables: Record<string, unknown>, key: string | null = h.api.keys.demo) {
  const subscription = await subscribe(h.url, query, variables, key);
  open.push(subscription);
  return subscription;
}

const metric = (series: string) => metricValue(h.gateway, series);

/** The reference API's GETs of one path since the last clearRequests(). */
const getsOf = (path: string) => h.api.requests.filter((r) => r.method === 'GET' && r.path === path).length;

async function firstExports() {
  const { data } = await h.run<{ organizations: { nodes: { id: string; batchExports: { nodes: { id: string }[] } }[] } }, unknown>(
    '{ organizations(first: 1) { nodes { id batchExports(first: 5) { nodes { id } } } } }',
  );
  const org = data.organizations.nodes[0] as { id: string; batchExports: { nodes: { id: string }[] } };
  return { organizationId: org.id, exportIds: org.batchExports.nodes.map((node) => node.id) };
}

const exportPath = (id: string) => {
  const [, orgId, exportId] = Buffer.from(id, 'base64').toString('utf8').split(':');
  return `/api/organizations/${orgId}/batch_exports/${exportId}/`;
};

beforeAll(async () => {
  h = await startHttpHarness({}, { subscriptions: { pollMs: POLL_MS, maxPerKey: 4, max: 6 } });
  ({ organizationId, exportIds } = await firstExports());
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((subscription) => subscription.close()));
  // Every stream is gone, and with it every poll.
  await expect.poll(() => h.gateway.subscriptionStats(), { timeout: 1000 }).toEqual({ streams: 0, polls: 0 });
});
afterAll(() => h.close());

describe('a batch export subscription', () => {
  it('answers over text/event-stream, first with the current state', async () => {
    const id = exportIds[0] as string;
    const { data } = await h.run<{ node: unknown }, unknown>(
      'query ($id: ID!) { node(id: $id) { ... on BatchExport { id name paused latestRuns { status } } } }',
      { id },
    );
    const subscription = await watch(WATCH_EXPORT, { id });
    expect(subscription.status).toBe(200);
    expect(subscription.contentType).toMatch(/^text\/event-stream/);
    const [first] = await subscription.waitForEvents(1);
    expect(first).toEqual({ data: { batchExport: data.node } });
  });

  it('is one poll for two subscribers of the same key and record, and nothing is pushed while nothing changes', async () => {
    const id = exportIds[0] as string;
    h.api.clearRequests();
    const a = await watch(WATCH_EXPORT, { id });
    const b = await watch(WATCH_PAUSED, { id });
    await Promise.all([a.waitForEvents(1), b.waitForEvents(1)]);
    const startedAt = performance.now();
    await sleep(POLL_MS * 5);
    expect(h.gateway.subscriptionStats()).toEqual({ streams: 2, polls: 1 });
    expect([await metric('gateway_subscription_streams'), await metric('gateway_subscription_polls')]).toEqual([2, 1]);
    const polls = getsOf(exportPath(id));
    const intervals = (performance.now() - startedAt) / POLL_MS;
    // One poll per interval for both (plus the first), not one per subscriber.
    expect(polls).toBeGreaterThanOrEqual(4);
    expect(polls).toBeLessThanOrEqual(Math.ceil(intervals) + 1);
    // Polled again and again, and nothing changed: each still has its first event only.
    expect([a.events.length, b.events.length]).toEqual([1, 1]);
  });

  it('does not share a poll between keys', async () => {
    const id = exportIds[0] as string;
    const a = await watch(WATCH_PAUSED, { id });
    const b = await watch(WATCH_PAUSED, { id }, h.api.keys.readOnly);
    await Promise.all([a.waitForEvents(1), b.waitForEvents(1)]);
    expect(h.gateway.subscriptionStats()).toEqual({ streams: 2, polls: 2 });
  });

  it('gets a pause through the gateway at once, without waiting for the next poll', async () => {
    // A poll interval far longer than the test: only the mutation's own re-poll can push the change.
    const slow = await startHttpHarness({}, { subscriptions: { pollMs: 60_000 } });
    try {
      const { exportIds: ids } = await (async () => {
        const { data } = await slow.run<{ organizations: { nodes: { batchExports: { nodes: { id: string }[] } }[] } }, unknown>(
          '{ organizations(first: 1) { nodes { batchExports(first: 1) { nodes { id } } } } }',
        );
        return { exportIds: data.organizations.nodes[0]?.batchExports.nodes.map((n) => n.id) ?? [] };
      })();
      const id = ids[0] as string;
      const a = await subscribe(slow.url, WATCH_PAUSED, { id }, slow.api.keys.demo);
      const b = await subscribe(slow.url, WATCH_EXPORT, { id }, slow.api.keys.demo);
      await Promise.all([a.waitForEvents(1), b.waitForEvents(1)]);
      expect(a.events[0]).toEqual({ data: { batchExport: { paused: false } } });
      const pausedAt = performance.now();
      const paused = await slow.run('mutation ($id: ID!) { pauseBatchExport(input: { id: $id }) { __typename } }', { id });
      expect(paused.errors).toBeUndefined();
      await Promise.all([a.waitForEvents(2, 1000), b.waitForEvents(2, 1000)]);
      expect(performance.now() - pausedAt).toBeLessThan(1000);
      expect(a.events[1]).toEqual({ data: { batchExport: { paused: true } } });
      expect(b.events[1]?.data?.batchExport).toMatchObject({ paused: true });
      await Promise.all([a.close(), b.close()]);
    } finally {
      await slow.close();
    }
  });

  it('pushes a change only to the subscribers whose selection it changes', async () => {
    const id = exportIds[1] as string;
    const paused = await watch(WATCH_PAUSED, { id });
    const named = await watch(WATCH_NAME, { id });
    await Promise.all([paused.waitForEvents(1), named.waitForEvents(1)]);
    const renamed = await h.run('mutation ($id: ID!) { updateBatchExport(input: { id: $id, name: "renamed live" }) { __typename } }', {
      id,
    });
    expect(renamed.errors).toBeUndefined();
    await named.waitForEvents(2);
    expect(named.events[1]).toEqual({ data: { batchExport: { name: 'renamed live' } } });
    await sleep(POLL_MS * 2);
    expect(paused.events).toHaveLength(1);
  });

  it('stops polling as soon as its last subscriber disconnects', async () => {
    const id = exportIds[2] as string;
    const a = await watch(WATCH_PAUSED, { id });
    const b = await watch(WATCH_PAUSED, { id });
    await Promise.all([a.waitForEvents(1), b.waitForEvents(1)]);
    await a.close();
    await expect.poll(() => h.gateway.subscriptionStats()).toEqual({ streams: 1, polls: 1 });
    h.api.clearRequests();
    await sleep(POLL_MS * 2.5);
    expect(getsOf(exportPath(id))).toBeGreaterThanOrEqual(1); // the other one still polls
    await b.close();
    await expect.poll(() => h.gateway.subscriptionStats()).toEqual({ streams: 0, polls: 0 });
    h.api.clearRequests();
    await sleep(POLL_MS * 3);
    expect(h.api.requests).toEqual([]);
  });

  it('ends with NOT_FOUND when the record is deleted', async () => {
    const created = await h.run<{ createBatchExport: { batchExport: { id: string } } }, unknown>(
      `mutation ($org: ID!) { createBatchExport(input: { organizationId: $org, name: "short-lived", model: "events", interval: "hour",
        destination: { type: "S3", config: { bucket_name: "b", region: "us-east-1", prefix: "p" } } }) {
        ... on CreateBatchExportPayload { batchExport { id } } } }`,
      { org: organizationId },
    );
    const id = created.data.createBatchExport.batchExport.id;
    const okPolls = await metric('gateway_subscription_polls_total{outcome="ok"}');
    const gonePolls = await metric('gateway_subscription_polls_total{outcome="NOT_FOUND"}');
    const writes = await metric('gateway_subscription_writes_total{origin="this_instance"}');
    const subscription = await watch(WATCH_NAME, { id });
    await subscription.waitForEvents(1);
    await h.run('mutation ($id: ID!) { deleteBatchExport(input: { id: $id }) { __typename } }', { id });
    await subscription.waitForComplete();
    expect(subscription.events).toHaveLength(2);
    expect(subscription.events[1]?.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
    // A poll's error is a field error of an executed event: the field is null in `data`, at its path.
    expect(subscription.events[1]).toMatchObject({ data: { batchExport: null }, errors: [{ path: ['batchExport'] }] });
    // /metrics: the first poll (and any before the delete), the delete (a write through this
    // instance) and the poll that found the record gone.
    expect(await metric('gateway_subscription_polls_total{outcome="ok"}')).toBeGreaterThan(okPolls);
    expect(await metric('gateway_subscription_writes_total{origin="this_instance"}')).toBe(writes + 1);
    expect(await metric('gateway_subscription_polls_total{outcome="NOT_FOUND"}')).toBe(gonePolls + 1);
  });
});

describe('domain and organizationMembers subscriptions', () => {
  it('push a domain once it is verified', async () => {
    const { data } = await h.run<{ node: { domains: { nodes: { id: string; isVerified: boolean }[] } } }, unknown>(
      'query ($org: ID!) { node(id: $org) { ... on Organization { domains(first: 20) { nodes { id isVerified } } } } }',
      { org: organizationId },
    );
    const unverified = data.node.domains.nodes.find((domain) => !domain.isVerified);
    expect(unverified).toBeDefined();
    const id = unverified?.id as string;
    const subscription = await watch('subscription ($id: ID!) { domain(id: $id) { id isVerified } }', { id });
    await subscription.waitForEvents(1);
    expect(subscription.events[0]).toEqual({ data: { domain: { id, isVerified: false } } });
    await h.run('mutation ($id: ID!) { verifyDomain(input: { id: $id }) { __typename } }', { id });
    await subscription.waitForEvents(2);
    expect(subscription.events[1]).toEqual({ data: { domain: { id, isVerified: true } } });
  });

  it('push the first page of members again when a member leaves, with cursors of Organization.members', async () => {
    const query = `subscription ($org: ID!) { organizationMembers(organizationId: $org, first: 2) {
      totalCount pageInfo { hasNextPage endCursor } nodes { id level } } }`;
    const subscription = await watch(query, { org: organizationId });
    const [first] = await subscription.waitForEvents(1);
    const page = first?.data?.organizationMembers as {
      totalCount: number;
      pageInfo: { endCursor: string };
      nodes: { id: string; level: number }[];
    };
    expect(page.nodes).toHaveLength(2);
    // The cursor pages on through the organization's own connection.
    const next = await h.run<{ node: { members: { nodes: { id: string }[] } } }, unknown>(
      'query ($org: ID!, $after: String) { node(id: $org) { ... on Organization { members(first: 2, after: $after) { nodes { id } } } } }',
      { org: organizationId, after: page.pageInfo.endCursor },
    );
    expect(next.errors).toBeUndefined();
    const member = page.nodes.find((node) => node.level < 15) as { id: string };
    const removed = await h.run('mutation ($id: ID!) { removeMember(input: { id: $id }) { __typename } }', { id: member.id });
    expect(removed.errors).toBeUndefined();
    const [, second] = await subscription.waitForEvents(2);
    expect(second?.data?.organizationMembers).toMatchObject({ totalCount: page.totalCount - 1 });
  });
});

describe('domain and organizationMembers subscriptions of a record that disappears', () => {
  const WATCH_DOMAIN = 'subscription ($id: ID!) { domain(id: $id) { id domain } }';
  const WATCH_MEMBERS = 'subscription ($org: ID!) { organizationMembers(organizationId: $org, first: 5) { totalCount nodes { level } } }';
  const codes = (subscription: SseSubscription) =>
    subscription.events.map((event) => event.errors?.map((e) => e.extensions?.code) ?? 'data');

  it('a watched domain that is deleted ends its stream with NOT_FOUND', async () => {
    const created = await h.run<{ createDomain: { domain: { id: string; databaseId: string } } }, unknown>(
      `mutation ($org: ID!) { createDomain(input: { organizationId: $org, domain: "short-lived.example" }) {
        ... on CreateDomainPayload { domain { id databaseId } } } }`,
      { org: organizationId },
    );
    const { id, databaseId } = created.data.createDomain.domain;
    const path = `/api/organizations/${Buffer.from(organizationId, 'base64').toString('utf8').split(':')[1]}/domains/${databaseId}/`;
    const subscription = await watch(WATCH_DOMAIN, { id });
    expect(await subscription.waitForEvents(1)).toEqual([{ data: { domain: { id, domain: 'short-lived.example' } } }]);
    const deleted = await h.run('mutation ($id: ID!) { deleteDomain(input: { id: $id }) { __typename } }', { id });
    expect(deleted.data).toEqual({ deleteDomain: { __typename: 'DeleteDomainPayload' } });
    await subscription.waitForComplete();
    expect(codes(subscription)).toEqual(['data', ['NOT_FOUND']]);
    // After the delete, the one poll that found it gone (with the subscriber's key), then none.
    const since = h.api.requests.findIndex((r) => r.method === 'DELETE' && r.path === path);
    expect(since).toBeGreaterThanOrEqual(0);
    await sleep(POLL_MS * 2);
    const after = h.api.requests.slice(since + 1).filter((r) => r.path === path);
    expect(after.map((r) => [r.method, r.headers.authorization])).toEqual([['GET', `Bearer ${h.api.keys.demo}`]]);
  });

  it('organizationMembers of an organization that disappears ends with NOT_FOUND; of an unknown one, at once', async () => {
    const gone = h.api.store.addOrganization({ name: 'Short-lived org' }, { owner: USER_IDS.demo });
    const subscription = await watch(WATCH_MEMBERS, { org: globalId('Organization', gone.id) });
    expect(await subscription.waitForEvents(1)).toEqual([{ data: { organizationMembers: { totalCount: 1, nodes: [{ level: 15 }] } } }]);
    h.api.clearRequests();
    h.api.store.deleteOrganization(gone.id); // behind the gateway's back: the next poll finds it gone
    await subscription.waitForComplete(POLL_MS * 8);
    expect(codes(subscription)).toEqual(['data', ['NOT_FOUND']]);
    await sleep(POLL_MS * 2); // the poll that found it gone was the last
    const membersOf = (org: string) => h.api.requests.filter((r) => r.method === 'GET' && r.path === `/api/organizations/${org}/members/`);
    expect(membersOf(gone.id)).toHaveLength(1);
    expect(h.api.requests).toHaveLength(1);

    const unknown = randomUUID();
    h.api.clearRequests();
    const never = await watch(WATCH_MEMBERS, { org: globalId('Organization', unknown) });
    await never.waitForComplete();
    expect(codes(never)).toEqual([['NOT_FOUND']]);
    await sleep(POLL_MS * 2);
    expect(membersOf(unknown)).toHaveLength(1);
    expect(h.api.requests).toHaveLength(1);
  });
});

describe('aliases', () => {
  /** The global id of the demo organization's first domain. */
  async function firstDomainId(): Promise<string> {
    const { data } = await h.run<{ node: { domains: { nodes: { id: string }[] } } }, unknown>(
      'query ($org: ID!) { node(id: $org) { ... on Organization { domains(first: 1) { nodes { id } } } } }',
      { org: organizationId },
    );
    return data.node.domains.nodes[0]?.id as string;
  }

  it('every subscription field answers under an alias, with its arguments as variables or literals, its errors too', async () => {
    const domainId = await firstDomainId();
    const exportId = exportIds[0] as string;
    const watched = await Promise.all([
      watch('subscription ($id: ID!) { w: batchExport(id: $id) { id } }', { id: exportId }),
      watch(`subscription { w: batchExport(id: "${exportId}") { id } }`, {}),
      watch('subscription ($id: ID!) { w: domain(id: $id) { id } }', { id: domainId }),
      watch('subscription ($org: ID!, $first: Int) { w: organizationMembers(organizationId: $org, first: $first) { nodes { id } } }', {
        org: organizationId,
        first: 1,
      }),
    ]);
    const firsts = await Promise.all(watched.map(async (subscription) => (await subscription.waitForEvents(1))[0]));
    expect(firsts.slice(0, 3)).toEqual([
      { data: { w: { id: exportId } } },
      { data: { w: { id: exportId } } },
      { data: { w: { id: domainId } } },
    ]);
    expect(firsts[3]?.data?.w).toEqual({ nodes: [expect.objectContaining({ id: expect.any(String) })] });

    const refused = await watch('subscription ($id: ID!) { w: batchExport(id: $id) { id } }', { id: organizationId });
    await refused.waitForComplete();
    expect(refused.events[0]?.errors?.map((e) => [e.path, e.extensions?.code])).toEqual([[['w'], 'BAD_USER_INPUT']]);
  });

  it('runs the operation named, when one document holds several subscriptions, whichever ran first', async () => {
    const domainId = await firstDomainId();
    const exportId = exportIds[0] as string;
    const query = 'subscription E($id: ID!) { batchExport(id: $id) { id } } subscription D($id: ID!) { domain(id: $id) { id } }';
    const first = await watch({ query, operationName: 'E' }, { id: exportId });
    expect((await first.waitForEvents(1))[0]).toEqual({ data: { batchExport: { id: exportId } } });
    const second = await watch({ query, operationName: 'D' }, { id: domainId });
    expect((await second.waitForEvents(1))[0]).toEqual({ data: { domain: { id: domainId } } });
  });
});

describe('refusals', () => {
  it('without a key: one UNAUTHENTICATED event, then complete, and no upstream call', async () => {
    h.api.clearRequests();
    const subscription = await watch(WATCH_PAUSED, { id: exportIds[0] }, null);
    await subscription.waitForComplete();
    expect(subscription.events.map((event) => event.errors?.map((e) => e.extensions?.code))).toEqual([['UNAUTHENTICATED']]);
    // A refusal before the stream starts is a request error (GraphQL's CreateSourceEventStream): no `data` at all.
    expect(subscription.events[0]).not.toHaveProperty('data');
    expect(subscription.events[0]?.errors?.[0]?.path).toEqual(['batchExport']);
    expect(h.api.requests).toEqual([]);
  });

  it('a variable missing or of the wrong type: BAD_USER_INPUT, as a query gets it, and no upstream call', async () => {
    h.api.clearRequests();
    for (const variables of [{}, { id: 42.5 }]) {
      const subscription = await watch(WATCH_PAUSED, variables);
      await subscription.waitForComplete();
      expect(subscription.events.map((event) => event.errors?.map((e) => e.extensions?.code))).toEqual([['BAD_USER_INPUT']]);
    }
    expect(h.api.requests).toEqual([]);
  });

  it('a bad id: BAD_USER_INPUT and no upstream call', async () => {
    h.api.clearRequests();
    const subscription = await watch(WATCH_PAUSED, { id: organizationId });
    await subscription.waitForComplete();
    expect(subscription.events.map((event) => event.errors?.map((e) => e.extensions?.code))).toEqual([['BAD_USER_INPUT']]);
    expect(h.api.requests).toEqual([]);
  });

  it('past MAX_SUBSCRIPTIONS_PER_KEY (4 here): QUERY_TOO_COMPLEX for that key, while another key is admitted', async () => {
    const id = exportIds[0] as string;
    const series = 'gateway_subscription_refusals_total{limit="MAX_SUBSCRIPTIONS_PER_KEY"}';
    const refusals = await metric(series);
    const admitted = await Promise.all([1, 2, 3, 4].map(() => watch(WATCH_PAUSED, { id })));
    await Promise.all(admitted.map((subscription) => subscription.waitForEvents(1)));
    const refused = await watch(WATCH_PAUSED, { id });
    await refused.waitForComplete();
    expect(refused.events.map((event) => event.errors?.map((e) => e.extensions?.code))).toEqual([['QUERY_TOO_COMPLEX']]);
    expect(refused.events[0]?.errors?.[0]?.extensions?.limit).toBe('maxSubscriptionsPerKey');
    expect(await metric(series)).toBe(refusals + 1);
    const other = await watch(WATCH_PAUSED, { id }, h.api.keys.readOnly);
    await other.waitForEvents(1);
    expect(other.events[0]?.errors).toBeUndefined();
    // One of the key's streams closes: its place is free again.
    await admitted[0]?.close();
    await expect.poll(() => h.gateway.subscriptionStats().streams).toBe(4);
    const again = await watch(WATCH_PAUSED, { id });
    await again.waitForEvents(1);
    expect(again.events[0]?.errors).toBeUndefined();
  });

  it('past MAX_SUBSCRIPTIONS (6 here, all keys): QUERY_TOO_COMPLEX', async () => {
    const id = exportIds[0] as string;
    const keys = [h.api.keys.demo, h.api.keys.demo, h.api.keys.demo, h.api.keys.readOnly, h.api.keys.readOnly, h.api.keys.readOnly];
    const series = 'gateway_subscription_refusals_total{limit="MAX_SUBSCRIPTIONS"}';
    const refusals = await metric(series);
    const admitted = await Promise.all(keys.map((key) => watch(WATCH_PAUSED, { id }, key)));
    await Promise.all(admitted.map((subscription) => subscription.waitForEvents(1)));
    const refused = await watch(WATCH_PAUSED, { id }, h.api.keys.organizationRead);
    await refused.waitForComplete();
    expect(refused.events[0]?.errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxSubscriptions' });
    expect(await metric(series)).toBe(refusals + 1);
  });

  it('with an Accept that allows JSON only: 406 with a JSON body naming text/event-stream, and no stream is left open', async () => {
    const streams = h.gateway.subscriptionStats().streams;
    for (const accept of ['application/json', 'application/graphql-response+json, application/json;q=0.9']) {
      const response = await fetch(h.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${h.api.keys.demo}` },
        body: JSON.stringify({ query: WATCH_PAUSED, variables: { id: exportIds[0] } }),
      });
      expect(response.status).toBe(406);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('accept')).toBe('text/event-stream');
      expect(await response.json()).toEqual({
        errors: [
          {
            message: 'The Accept header allows none of the media types this answer can take: text/event-stream.',
            extensions: { code: 'BAD_REQUEST', accept: ['text/event-stream'] },
          },
        ],
      });
    }
    await expect.poll(() => h.gateway.subscriptionStats().streams).toBe(streams);
  });

  it('with Accept: */* (plain curl) or none: the SSE stream, as with text/event-stream', async () => {
    for (const headers of [{ accept: '*/*' }, {}] as Record<string, string>[]) {
      const stop = new AbortController();
      const response = await fetch(h.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${h.api.keys.demo}`, ...headers },
        body: JSON.stringify({ query: WATCH_PAUSED, variables: { id: exportIds[0] } }),
        signal: stop.signal,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      let text = '';
      while (!text.includes('event: next')) text += new TextDecoder().decode((await reader.read()).value);
      expect(text).toMatch(/event: next\ndata: \{"data":\{"batchExport":\{"paused":(true|false)\}\}\}/);
      stop.abort();
    }
    await expect.poll(() => h.gateway.subscriptionStats().streams).toBe(0);
  });
});

describe('SIGTERM', () => {
  it('completes every open stream, and the process exits cleanly before the grace period', async () => {
    const id = exportIds[0] as string;
    const a = await watch(WATCH_PAUSED, { id });
    const b = await watch('subscription ($org: ID!) { organizationMembers(organizationId: $org) { totalCount } }', { org: organizationId });
    await Promise.all([a.waitForEvents(1), b.waitForEvents(1)]);
    const exits: number[] = [];
    const shutdown = gracefulShutdown({
      // A server of its own: the harness's is closed by afterAll.
      server: (await import('node:http')).createServer(),
      graceMs: 5000,
      logger: createLogger({ ...DEFAULTS, logLevel: 'silent' }),
      beginShutdown: h.gateway.beginShutdown,
      release: [],
      exit: (code) => exits.push(code),
    });
    await shutdown('SIGTERM');
    await Promise.all([a.waitForComplete(), b.waitForComplete()]);
    expect(exits).toEqual([0]);
    expect(h.gateway.subscriptionStats()).toEqual({ streams: 0, polls: 0 });
  });
});
