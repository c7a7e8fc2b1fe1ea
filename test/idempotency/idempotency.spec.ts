// Idempotent mutations against the reference API, one gateway, records in its memory: a retry is
// replayed byte for byte without an upstream call, another payload under the key is refused, a
// malformed key is refused before anything runs, the header changes nothing on a query, GET or a
// subscription (SSE), a request that sent no write leaves nothing behind, and keys are per caller.
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { globalId } from '../../src/schema/global-id.ts';
import { type HttpHarness, startHttpHarness } from '../support/http-server.ts';
import { subscribe } from '../support/sse.ts';
import { CREATE_DOMAIN, domainInput, ORGANIZATIONS, post } from './support.ts';

let h: HttpHarness;
let org: string;
let counter = 0;
const newDomain = () => `idem${++counter}.example`;
const writes = () => h.api.requests.filter((request) => request.method !== 'GET');

beforeAll(async () => {
  h = await startHttpHarness();
  org = h.api.store.addOrganization({ name: 'Idempotency org' }, { owner: 1 }).id;
});

afterAll(() => h?.close());

beforeEach(() => h.api.clearRequests());

describe('a retry with the same key and request', () => {
  it('gets the first response byte for byte, marked Idempotent-Replayed, with no upstream call', async () => {
    const variables = domainInput(org, newDomain());
    const first = await post(h.url, { key: h.api.keys.demo, idempotencyKey: 'retry-1', variables });
    expect(first.status).toBe(200);
    expect(first.body.data.createDomain.__typename).toBe('CreateDomainPayload');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(writes()).toHaveLength(1);

    h.api.clearRequests();
    const retry = await post(h.url, { key: h.api.keys.demo, idempotencyKey: 'retry-1', variables });
    expect(retry.status).toBe(first.status);
    expect(retry.text).toBe(first.text);
    expect(retry.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('x-request-id')).toEqual(expect.any(String));
    expect(h.api.requests).toHaveLength(0);
  });

  it('matches whatever the order of the variables’ keys, and the quoted form of the key', async () => {
    const domain = newDomain();
    const organizationId = domainInput(org, domain).input.organizationId;
    const first = await post(h.url, { key: h.api.keys.demo, idempotencyKey: 'order-1', variables: { input: { organizationId, domain } } });
    const retry = await post(h.url, {
      key: h.api.keys.demo,
      idempotencyKey: '"order-1"',
      variables: { input: { domain, organizationId } },
    });
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.text).toBe(first.text);
    expect(writes()).toHaveLength(1);
  });

  it('replays an error the upstream answered after the write (a ValidationError), without sending it again', async () => {
    const variables = domainInput(org, 'not a domain');
    const first = await post(h.url, { key: h.api.keys.demo, idempotencyKey: 'invalid-1', variables });
    expect(first.body.data.createDomain.__typename).toBe('ValidationError');
    const retry = await post(h.url, { key: h.api.keys.demo, idempotencyKey: 'invalid-1', variables });
    expect(retry.text).toBe(first.text);
    expect(writes()).toHaveLength(1);
  });
});

describe('refused without an upstream call', () => {
  it('another payload under the same key: 422 IDEMPOTENCY_KEY_REUSED', async () => {
    await post(h.url, { key: h.api.keys.demo, idempotencyKey: 'reuse-1', variables: domainInput(org, newDomain()) });
    h.api.clearRequests();
    for (const other of [
      { variables: domainInput(org, newDomain()) },
      { query: CREATE_DOMAIN.replace('domain { id domain }', 'domain { id }'), variables: domainInput(org, newDomain()) },
    ]) {
      const reused = await post(h.url, { key: h.api.keys.demo, idempotencyKey: 'reuse-1', ...other });
      expect(reused.status).toBe(422);
      expect(reused.body.errors?.[0]?.extensions).toEqual({ code: 'IDEMPOTENCY_KEY_REUSED' });
      expect(reused.body.data).toBeUndefined();
    }
    expect(h.api.requests).toHaveLength(0);
  });

  it('another JSON value under a `__proto__` key: 422, the key counts like any other', async () => {
    const query = `mutation Create($config: JSON) { createPipelineDestination(input: { organizationId: "${domainInput(org, '').input.organizationId}", configSchema: $config }) { __typename } }`;
    const config = (url: string) => JSON.parse(`{"config":{"__proto__":{"url":"${url}"}}}`);
    const first = await post(h.url, { key: h.api.keys.demo, idempotencyKey: 'proto-1', query, variables: config('https://a.example') });
    expect(first.status).toBe(200);
    expect(writes()).toHaveLength(1); // answered or not, the write went out: it is remembered
    for (const variables of [config('https://b.example'), { config: {} }]) {
      const reused = await post(h.url, { key: h.api.keys.demo, idempotencyKey: 'proto-1', query, variables });
      expect(reused.status).toBe(422);
      expect(reused.body.errors?.[0]?.extensions).toEqual({ code: 'IDEMPOTENCY_KEY_REUSED' });
    }
    expect(writes()).toHaveLength(1);
  });

  it.each([
    ['empty', ''],
    ['a space inside', 'a b'],
    ['two keys', 'a, b'],
    ['two keys without a space', 'a,b'],
    ['a comma inside quotes', '"a,b"'],
    ['256 characters', 'k'.repeat(256)],
    ['not ASCII', 'clé'],
    ['an empty quoted key', '""'],
    ['spaces inside quotes', '"a b"'],
  ])('a malformed key (%s): 400 BAD_USER_INPUT, before anything runs', async (_name, idempotencyKey) => {
    const variables = domainInput(org, newDomain());
    const refused = await post(h.gateway, { key: h.api.keys.demo, idempotencyKey, variables });
    expect(refused.status).toBe(400);
    expect(refused.body.errors?.[0]?.extensions).toEqual({ code: 'BAD_USER_INPUT' });
    expect(refused.body.errors?.[0]?.message).toMatch(/Idempotency-Key/);
    expect(h.api.requests).toHaveLength(0);
  });

  it('accepts every key of 1 to 255 visible ASCII characters but the comma, bare or quoted', async () => {
    const visible = fc
      .string({
        unit: fc
          .integer({ min: 0x21, max: 0x7e })
          .filter((code) => code !== 0x2c)
          .map((code) => String.fromCharCode(code)),
        minLength: 1,
        maxLength: 255,
      })
      .filter((key) => key !== '""');
    await fc.assert(
      fc.asyncProperty(visible, async (idempotencyKey) => {
        // A mutation that writes nothing: the key is accepted, and released as it ends.
        const bare = await post(h.gateway, { key: h.api.keys.demo, idempotencyKey, query: 'mutation { __typename }' });
        expect(bare.status).toBe(200);
        const quoted = await post(h.gateway, {
          key: h.api.keys.demo,
          idempotencyKey: `"${idempotencyKey}"`,
          query: 'mutation { __typename }',
        });
        expect(quoted.status).toBe(200);
        expect(quoted.headers.get('idempotent-replayed')).toBeNull(); // nothing was kept
      }),
      { numRuns: 30 },
    );
  });
});

describe('where the header changes nothing', () => {
  it('on a query, even malformed, and on GET', async () => {
    const query = await post(h.gateway, { key: h.api.keys.demo, idempotencyKey: 'a b', query: ORGANIZATIONS });
    expect(query.status).toBe(200);
    expect(query.body.data.organizations.totalCount).toBeGreaterThan(0);
    const again = await post(h.gateway, { key: h.api.keys.demo, idempotencyKey: 'query-1', query: ORGANIZATIONS });
    const twice = await post(h.gateway, { key: h.api.keys.demo, idempotencyKey: 'query-1', query: ORGANIZATIONS });
    expect(twice.headers.get('idempotent-replayed')).toBeNull();
    expect(twice.text).toBe(again.text);
    expect(h.api.requests.filter((request) => request.path === '/api/organizations/')).toHaveLength(3);
    const get = await h.gateway.yoga.fetch(`http://gateway.test/graphql?query=${encodeURIComponent(ORGANIZATIONS)}`, {
      headers: { authorization: `Bearer ${h.api.keys.demo}`, 'idempotency-key': 'a b' },
    });
    expect(get.status).toBe(200);
  });

  it('on a subscription (SSE), even malformed: the stream runs as without it, and the key stays free for a mutation', async () => {
    const domain = h.api.store.addDomain(org, { domain: newDomain() });
    const query = 'subscription ($id: ID!) { domain(id: $id) { id domain isVerified } }';
    const variables = { id: globalId('Domain', org, domain.id) };
    /** subscribe()'s fetch, with the header added. */
    const withKey =
      (idempotencyKey: string) =>
      (url: string, init: RequestInit): Promise<Response> =>
        fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), 'idempotency-key': idempotencyKey } });
    const plain = await subscribe(h.url, query, variables, h.api.keys.demo);
    const open = await subscribe(h.url, query, variables, h.api.keys.demo, withKey('sub-open'));
    const ended = await subscribe(h.url, query, variables, h.api.keys.demo, withKey('sub-ended'));
    const malformed = await subscribe(h.url, query, variables, h.api.keys.demo, withKey('a b'));
    try {
      const [expected] = await plain.waitForEvents(1);
      expect(expected).toEqual({ data: { domain: { id: variables.id, domain: domain.domain, isVerified: false } } });
      for (const subscription of [open, ended, malformed]) {
        expect(subscription.status).toBe(200);
        expect(subscription.contentType).toMatch(/^text\/event-stream/);
        expect(await subscription.waitForEvents(1)).toEqual([expected]);
        expect(subscription.completed()).toBe(false);
      }
      const polls = h.api.requests.filter((request) => request.path === `/api/organizations/${org}/domains/${domain.id}/`);
      expect(polls.length).toBeGreaterThan(0);
      expect(writes()).toHaveLength(0);

      // The same keys then run a mutation: one while its stream is still open, one after it ended.
      await ended.close();
      for (const idempotencyKey of ['sub-open', 'sub-ended']) {
        const mutation = await post(h.url, { key: h.api.keys.demo, idempotencyKey, variables: domainInput(org, newDomain()) });
        expect(mutation.status).toBe(200);
        expect(mutation.body.data.createDomain.__typename).toBe('CreateDomainPayload');
        expect(mutation.headers.get('idempotent-replayed')).toBeNull();
      }
      expect(writes()).toHaveLength(2);
      // Not vacuous: the mutation did take its key, so another payload under it is now refused.
      const reused = await post(h.url, { key: h.api.keys.demo, idempotencyKey: 'sub-open', variables: domainInput(org, newDomain()) });
      expect(reused.status).toBe(422);
      expect(writes()).toHaveLength(2);
    } finally {
      await Promise.all([plain, open, ended, malformed].map((subscription) => subscription.close()));
    }
  });
});

describe('a request refused before any write leaves nothing behind', () => {
  it.each([
    ['no key (UNAUTHENTICATED)', { key: undefined }],
    ['a malformed global id (BAD_USER_INPUT)', { variables: { input: { organizationId: 'not-an-id', domain: 'x.example' } } }],
  ])('%s: the same key then runs another payload', async (_name, refused) => {
    const idempotencyKey = `refused-${++counter}`;
    const first = await post(h.url, { key: h.api.keys.demo, idempotencyKey, variables: domainInput(org, newDomain()), ...refused });
    expect(first.body.errors?.[0]?.extensions?.code).toMatch(/^(UNAUTHENTICATED|BAD_USER_INPUT)$/);
    const before = writes().length;
    const next = await post(h.url, { key: h.api.keys.demo, idempotencyKey, variables: domainInput(org, newDomain()) });
    expect(next.status).toBe(200);
    expect(next.body.data.createDomain.__typename).toBe('CreateDomainPayload');
    expect(next.headers.get('idempotent-replayed')).toBeNull();
    expect(writes()).toHaveLength(before + 1);
  });
});

describe('keys are per caller', () => {
  it('another caller’s same Idempotency-Key never sees the entry: it runs its own request', async () => {
    const outsiderOrg = h.api.store.addOrganization({ name: 'Outsider idempotency org' }, { owner: 6 }).id;
    const mine = await post(h.url, { key: h.api.keys.demo, idempotencyKey: 'shared-1', variables: domainInput(org, newDomain()) });
    const theirs = await post(h.url, {
      key: h.api.keys.outsider,
      idempotencyKey: 'shared-1',
      variables: domainInput(outsiderOrg, newDomain()),
    });
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.createDomain.__typename).toBe('CreateDomainPayload');
    expect(theirs.text).not.toBe(mine.text);
    expect(writes().map((write) => write.headers.authorization)).toEqual([`Bearer ${h.api.keys.demo}`, `Bearer ${h.api.keys.outsider}`]);
  });
});
