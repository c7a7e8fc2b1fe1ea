// CORS: open by default (bearer keys only, never cookies, so never credentials), or a list of
// origins; the response headers callers read (Retry-After, Idempotent-Replayed) exposed. CSRF prevention: off by default (plain GET queries need no header, per the contract); on,
// requests a browser sends without a pre-flight need `x-graphql-csrf` or `apollo-require-preflight`.
import { afterAll, describe, expect, it } from 'vitest';
import type { Gateway } from '../../src/gateway.ts';
import { startReferenceApi } from '../../src/reference-api/index.ts';
import { CREATE_DOMAIN, domainInput } from '../idempotency/support.ts';
import { serveOverHttp } from '../support/http-server.ts';
import { gatewayFactory } from './support.ts';

const api = await startReferenceApi();
const gateways = gatewayFactory({ upstreamUrl: api.url });

const gateway = gateways.build;

afterAll(async () => {
  await gateways.closeAll();
  await api.close();
});

const preflight = (target: Gateway, origin: string) =>
  target.yoga.fetch('http://gateway.test/graphql', {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });

const query = encodeURIComponent('{ organizations { totalCount } }');

describe('CORS', () => {
  it('by default allows any origin, without credentials, and exposes the request id', async () => {
    const target = gateway();
    const response = await preflight(target, 'https://app.example.com');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');

    const actual = await target.yoga.fetch(`http://gateway.test/graphql?query=${query}`, {
      headers: { origin: 'https://other.example.org', accept: 'application/json', authorization: `Bearer ${api.keys.demo}` },
    });
    expect(actual.status).toBe(200);
    expect(actual.headers.get('access-control-allow-origin')).toBe('https://other.example.org');
    expect(actual.headers.get('access-control-expose-headers')).toBe('x-request-id, retry-after, idempotent-replayed');
    expect(actual.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('lets a page read Retry-After and Idempotent-Replayed, over HTTP, as a RetryLink needs', async () => {
    const served = await serveOverHttp(gateway({ idempotency: { maxEntries: 1 } }));
    try {
      const org = api.store.addOrganization({ name: 'CORS org' }, { owner: 1 }).id;
      const send = (idempotencyKey: string) =>
        fetch(served.url, {
          method: 'POST',
          headers: {
            origin: 'https://app.example.com',
            'content-type': 'application/json',
            authorization: `Bearer ${api.keys.demo}`,
            'idempotency-key': idempotencyKey,
          },
          body: JSON.stringify({ query: CREATE_DOMAIN, variables: domainInput(org, 'cors.example') }),
        });
      const readable = (response: Response) => response.headers.get('access-control-expose-headers')?.split(', ') ?? [];
      expect((await send('cors-1')).status).toBe(200);
      const replay = await send('cors-1');
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(readable(replay)).toContain('idempotent-replayed');
      const full = await send('cors-2'); // IDEMPOTENCY_MAX_ENTRIES reached: 503 with Retry-After
      expect(full.status).toBe(503);
      expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(0); // when the first record expires
      expect(readable(full)).toContain('retry-after');
    } finally {
      await served.close();
    }
  });

  it('with CORS_ORIGINS allows only the listed origins', async () => {
    const target = gateway({ corsOrigins: ['https://app.example.com', 'http://localhost:3000'] });
    expect((await preflight(target, 'http://localhost:3000')).headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    expect((await preflight(target, 'https://app.example.com')).headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const refused = (await preflight(target, 'https://evil.example.net')).headers.get('access-control-allow-origin');
    expect(refused).not.toBe('https://evil.example.net');
    expect(refused).not.toBe('*');
  });
});

describe('CSRF prevention', () => {
  it('is off by default: a plain GET query needs no extra header', async () => {
    const response = await gateway().yoga.fetch(`http://gateway.test/graphql?query=${query}`, {
      headers: { accept: 'application/json', authorization: `Bearer ${api.keys.demo}` },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).data.organizations.totalCount).toBeGreaterThan(0);
  });

  describe('when on', () => {
    const target = gateway({ csrfPrevention: true });
    const get = (headers: Record<string, string>) =>
      target.yoga.fetch(`http://gateway.test/graphql?query=${query}`, {
        headers: { accept: 'application/json', authorization: `Bearer ${api.keys.demo}`, ...headers },
      });

    it('refuses a GET without the header, with no upstream call', async () => {
      api.clearRequests();
      const response = await get({});
      expect(response.status).toBe(403);
      expect(((await response.json()) as any).errors[0].message).toBe('Required CSRF header(s) not present');
      expect(api.requests).toHaveLength(0);
    });

    it.each(['x-graphql-csrf', 'apollo-require-preflight'])('accepts a GET with %s', async (header) => {
      expect((await get({ [header]: '1' })).status).toBe(200);
    });

    it('refuses a form POST without the header, accepts a JSON POST (always pre-flighted)', async () => {
      const post = (contentType: string, body: string) =>
        target.yoga.fetch('http://gateway.test/graphql', {
          method: 'POST',
          headers: { 'content-type': contentType, accept: 'application/json', authorization: `Bearer ${api.keys.demo}` },
          body,
        });
      expect((await post('application/x-www-form-urlencoded', `query=${query}`)).status).toBe(403);
      expect((await post('application/json', JSON.stringify({ query: '{ organizations { totalCount } }' }))).status).toBe(200);
    });

    it('leaves /health and /readiness alone', async () => {
      expect((await target.yoga.fetch('http://gateway.test/health')).status).toBe(200);
      expect((await target.yoga.fetch('http://gateway.test/readiness')).status).toBe(200);
    });
  });
});
