// Query shape limits (GraphQL Armor) and request limits: each refusal is QUERY_TOO_COMPLEX naming
// its limit, and none reaches the upstream.
import { Agent, createServer, request } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.ts';

let h: Harness;
/** A body over the 2048 bytes this file's gateway allows. */
const big = JSON.stringify({ query: `{ organizations { totalCount } }`, variables: { pad: 'x'.repeat(4000) } });
beforeAll(async () => {
  h = await startHarness({}, { queryLimits: { maxDepth: 5, maxAliases: 3, maxTokens: 120, maxDirectives: 2 }, maxRequestBytes: 2048 });
});
afterAll(() => h.close());

describe('query limits', () => {
  it.each([
    ['maxDepth', `{ organizations { nodes { batchExports { nodes { latestRuns { status } } } } } }`],
    [
      'maxAliases',
      `{ a: organizations { totalCount } b: organizations { totalCount } c: organizations { totalCount } d: organizations { totalCount } }`,
    ],
    ['maxTokens', `{ organizations { nodes { ${Array.from({ length: 150 }, () => 'name').join(' ')} } } }`],
    [
      'maxDirectives',
      `{ organizations @include(if: true) { totalCount @skip(if: false) } project(databaseId: "1") @include(if: true) { name } }`,
    ],
  ])('refuses an operation over %s with QUERY_TOO_COMPLEX and no upstream call', async (limit, query) => {
    const { errors, calls } = await h.runCounting(query);
    expect(errors?.[0]?.extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit });
    expect(errors?.[0]?.message).toMatch(/limit of \d+ exceeded/);
    expect(calls).toHaveLength(0);
  });

  it('counts maxTokens with fragments inlined too: each fragment spread twice, 40 deep (1 KB), is refused at once', async () => {
    const defaults = await startHarness();
    try {
      const doubling = (on: string, last: string) =>
        Array.from({ length: 40 }, (_, i) => `fragment F${i} on ${on} { ...F${i + 1} ...F${i + 1} }`).join('\n') +
        `\nfragment F40 on ${on} { ${last} }`;
      for (const query of [
        `query Q { ...F0 } ${doubling('Query', '__typename')}`,
        `query Q { organizations(first: 1) { ...F0 } } ${doubling('OrganizationConnection', 'totalCount')}`,
      ]) {
        const { status, errors, calls } = await defaults.runCounting(query, undefined, { key: null });
        expect(status).toBe(400);
        expect(errors).toEqual([
          expect.objectContaining({
            message: expect.stringMatching(/^Token limit of 2000 exceeded with fragments inlined, found \d+ fields\.$/),
            extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'maxTokens' },
          }),
        ]);
        expect(calls).toHaveLength(0);
      }
      // A fragment spread a few times is fine.
      const reused = await defaults.runCounting(
        `{ a: organizations(first: 1) { ...Count } b: organizations(first: 2) { ...Count } } fragment Count on OrganizationConnection { totalCount }`,
      );
      expect(reused.errors).toBeUndefined();
    } finally {
      await defaults.close();
    }
  });

  it('runs operations within every limit', async () => {
    const { errors } = await h.runCounting(`{ organizations(first: 1) { nodes { name } } }`);
    expect(errors).toBeUndefined();
  });

  it('hides field suggestions from callers without a key, and shows them with one', async () => {
    const anonymous = await h.runCounting(`{ organizations { nodes { nmae } } }`, undefined, { key: null });
    expect(anonymous.errors?.[0]?.message).toContain('Cannot query field "nmae"');
    expect(anonymous.errors?.[0]?.message).not.toContain('Did you mean');
    const known = await h.runCounting(`{ organizations { nodes { nmae } } }`);
    expect(known.errors?.[0]?.message).toContain('Did you mean "name"?');
  });
});

describe('request limits', () => {
  const post = (body: BodyInit, headers: Record<string, string> = {}) =>
    h.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${h.api.keys.demo}`, ...headers },
      body,
      // A ReadableStream body is sent without Content-Length.
      ...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);

  it('refuses a body over MAX_REQUEST_BYTES by its Content-Length with 413', async () => {
    h.api.clearRequests();
    const response = await post(big, { 'content-length': String(Buffer.byteLength(big)) });
    expect(response.status).toBe(413);
    expect(((await response.json()) as any).errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxRequestBytes' });
    expect(h.api.requests).toHaveLength(0);
  });

  it('refuses a streamed body that grows past the limit with 413', async () => {
    h.api.clearRequests();
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const response = await post(stream);
    expect(response.status).toBe(413);
    expect(((await response.json()) as any).errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxRequestBytes' });
    expect(h.api.requests).toHaveLength(0);
  });

  it('accepts a streamed body within the limit', async () => {
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(JSON.stringify({ query: '{ organizations { totalCount } }' })));
        controller.close();
      },
    });
    const response = await post(stream);
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).data.organizations.totalCount).toBeGreaterThan(0);
  });

  it('answers a streamed body as the same body with a Content-Length: its content type and JSON type decide', async () => {
    const query = JSON.stringify({ query: '{ __typename }' });
    const cases: [contentType: string | null, body: string][] = [
      ['application/json', 'null'],
      ['application/json', '"a string"'],
      ['application/json', query],
      ['text/plain', query],
      ['application/xml', query],
      [null, query],
      ['application/graphql', '{ __typename }'],
      ['application/x-www-form-urlencoded', `query=${encodeURIComponent('{ __typename }')}`],
    ];
    for (const [contentType, body] of cases) {
      const send = async (streamed: boolean) => {
        const response = await h.gateway.yoga.fetch('http://gateway.test/graphql', {
          method: 'POST',
          headers: { ...(contentType && { 'content-type': contentType }), authorization: `Bearer ${h.api.keys.demo}` },
          body: streamed ? new Blob([body]).stream() : body,
          ...(streamed && { duplex: 'half' }),
        } as RequestInit);
        return [response.status, await response.text()];
      };
      expect(await send(true), `${contentType} ${body}`).toEqual(await send(false));
    }
  });

  it('refuses a batch (a JSON array) longer than MAX_BATCH_SIZE (test/incremental/batching.spec.ts has the rest)', async () => {
    h.api.clearRequests();
    const response = await post(JSON.stringify(Array.from({ length: 11 }, () => ({ query: '{ organizations { totalCount } }' }))));
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].extensions).toMatchObject({ code: 'QUERY_TOO_COMPLEX', limit: 'maxBatchSize' });
    expect(h.api.requests).toHaveLength(0);
  });
});

describe('malformed requests', () => {
  it('answer a clear error without quoting the body back or any internal detail', async () => {
    const response = await h.gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        authorization: `Bearer ${h.api.keys.demo}`,
      },
      body: '{"query": "{ secret_phx_abc',
    });
    const text = await response.text();
    expect(response.status).toBe(400);
    expect(JSON.parse(text).errors[0].message).toBe('POST body sent invalid JSON.');
    expect(text).not.toContain('secret_phx_abc');
    expect(text).not.toContain('originalError');
  });

  // Over a real socket (Yoga's own body-size check is off: ours and Node's HTTP parser cover it).
  describe('over HTTP', () => {
    const server = createServer((req, res) => void h.gateway.listener(req, res));
    beforeAll(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)));
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    /** Sends raw HTTP/1.1 bytes and returns the status line of the answer. */
    const raw = (head: string, body: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk));
        socket.on('close', () => resolve(answer.split('\r\n')[0] ?? ''));
        socket.on('error', reject);
        socket.write(
          `POST /graphql HTTP/1.1\r\nHost: gateway.test\r\nContent-Type: application/json\r\nAuthorization: Bearer ${h.api.keys.demo}\r\nConnection: close\r\n${head}\r\n${body}`,
        );
      });

    it.each(['abc', '-1', '10, 10'])('answers 400 to Content-Length %j, with no upstream call', async (length) => {
      h.api.clearRequests();
      expect(await raw(`Content-Length: ${length}\r\n`, '{"query":"{ organizations { totalCount } }"}')).toBe('HTTP/1.1 400 Bad Request');
      expect(h.api.requests).toHaveLength(0);
    });

    it('answers 413 to a chunked body past the limit, and 200 to one within it', async () => {
      h.api.clearRequests();
      const chunked = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n0\r\n\r\n`;
      expect(await raw('Transfer-Encoding: chunked\r\n', chunked(big))).toBe('HTTP/1.1 413 Payload Too Large');
      expect(h.api.requests).toHaveLength(0);
      const small = JSON.stringify({ query: '{ organizations { totalCount } }' });
      expect(await raw('Transfer-Encoding: chunked\r\n', chunked(small))).toBe('HTTP/1.1 200 OK');
    });

    describe('a keep-alive client (one pooled connection)', () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      afterAll(() => agent.destroy());

      /** A POST on the agent's pool, its body written in `chunks` (no Content-Length: chunked). */
      const post = (chunks: string[]) =>
        new Promise<{ status: number; connection: string | undefined; reused: boolean }>((resolve, reject) => {
          const req = request(
            {
              agent,
              host: '127.0.0.1',
              port: (server.address() as AddressInfo).port,
              method: 'POST',
              path: '/graphql',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${h.api.keys.demo}` },
            },
            (res) => {
              res.resume();
              res.on('end', () =>
                resolve({ status: res.statusCode as number, connection: res.headers.connection, reused: req.reusedSocket }),
              );
            },
          );
          req.on('error', reject);
          for (const chunk of chunks) req.write(chunk);
          req.end();
        });
      const small = JSON.stringify({ query: '{ organizations { totalCount } }' });

      it('keeps its connection across requests whose bodies were read', async () => {
        expect(await post([small])).toMatchObject({ status: 200, connection: 'keep-alive' });
        expect(await post([small])).toMatchObject({ status: 200, connection: 'keep-alive', reused: true });
      });

      it('sends its next request fine after a chunked body past the limit: the 413 closes the connection it left unread', async () => {
        // Written in pieces, so the gateway answers before the last one arrives.
        const refused = await post([big.slice(0, 3000), big.slice(3000)]);
        expect(refused).toMatchObject({ status: 413, connection: 'close' });
        const next = await post([small]);
        expect(next).toMatchObject({ status: 200, reused: false });
      });
    });
  });
});
