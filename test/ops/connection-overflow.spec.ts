// Connections past MAX_CONNECTIONS get an answer, not a reset: 503 OVERLOADED with Retry-After and
// `Connection: close`, with no upstream call, counted in /metrics; /health still answers on them; a
// pooled client's next request, once there is room, is served. Past MAX_CONNECTIONS +
// MAX_OVERFLOW_CONNECTIONS a connection is closed as it arrives (test/ops/server.spec.ts).
// The gateway runs behind its own server against the reference API; raw sockets hold connections.
import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { type RawClient, useGatewayServer } from '../support/gateway-server.ts';

const { serveGateway, rawClient, openConnections, api, gateway } = useGatewayServer();

const QUERY = JSON.stringify({ query: '{ organizations { totalCount } }' });
const headOf = (key: string, extra = '') =>
  `POST /graphql HTTP/1.1\r\nHost: gateway.test\r\nContent-Type: application/json\r\nAuthorization: Bearer ${key}\r\n${extra}`;

/** Connections that hold their place: each has sent half a request's headers. */
async function holdConnections(port: number, count: number): Promise<RawClient[]> {
  const holders: RawClient[] = [];
  for (let i = 0; i < count; i++) {
    const holder = await rawClient(port);
    holder.socket.write('POST /graphql HTTP/1.1\r\n');
    holders.push(holder);
  }
  return holders;
}

describe('a connection past MAX_CONNECTIONS', () => {
  it('gets 503 OVERLOADED with Retry-After and Connection: close, no upstream call, and is counted', async () => {
    const port = await serveGateway({ maxConnections: 2, maxOverflowConnections: 5 });
    await holdConnections(port, 2);
    const key = api().keys.demo as string;
    api().clearRequests();

    const over = await rawClient(port);
    over.socket.write(
      `${headOf(key, 'X-Request-Id: overflow-1\r\nOrigin: https://app.example\r\n')}Content-Length: ${QUERY.length}\r\n\r\n${QUERY}`,
    );
    await over.closed;
    const [head = '', body = ''] = over.received().split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 503 /);
    expect(head).toMatch(/\r\nretry-after: [12]\r\n/i);
    expect(head).toMatch(/\r\nconnection: close\r\n/i);
    expect(head).toMatch(/\r\nx-request-id: overflow-1\r\n/i);
    expect(head).toMatch(/\r\naccess-control-allow-origin: /i);
    const answer = JSON.parse(body) as { errors: { message: string; extensions: Record<string, unknown> }[] };
    const retryAfter = Number(/\r\nretry-after: (\d)\r\n/i.exec(head)?.[1]);
    expect(answer.errors).toEqual([
      {
        message: `This gateway is at capacity. Retry after ${retryAfter} ${retryAfter === 1 ? 'second' : 'seconds'}.`,
        extensions: { code: 'OVERLOADED', retryAfter, limit: 'maxConnections' },
      },
    ]);
    expect(api().requests).toEqual([]);
    expect(await gateway().metrics.registry.getSingleMetricAsString('gateway_admission_refused_total')).toMatch(
      /gateway_admission_refused_total\{reason="connections"\} 1$/m,
    );
  });

  it('still answers /health, so a liveness probe does not fail for a flood', async () => {
    const port = await serveGateway({ maxConnections: 1, maxOverflowConnections: 5 });
    await holdConnections(port, 1);
    const probe = await rawClient(port);
    probe.socket.write('GET /health HTTP/1.1\r\nHost: gateway.test\r\nConnection: close\r\n\r\n');
    await probe.closed;
    expect(probe.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('a pooled client is refused, then served on its next request once there is room (it never sees a reset)', async () => {
    const port = await serveGateway({ maxConnections: 2, maxOverflowConnections: 5 });
    const holders = await holdConnections(port, 2);
    const key = api().keys.demo as string;
    const pool = new Agent({ connections: 1 });
    const send = () =>
      request(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        dispatcher: pool,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: QUERY,
      });
    try {
      const refused = await send();
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toMatch(/^[12]$/);
      await refused.body.text();

      for (const holder of holders) holder.socket.destroy();
      // The server counts a connection out when its side has closed too (the refused one closed after its answer).
      await expect.poll(openConnections).toBe(0);
      const served = await send();
      expect(served.statusCode).toBe(200);
      expect(await served.body.json()).toEqual({ data: { organizations: { totalCount: expect.any(Number) } } });
    } finally {
      await pool.close();
    }
  });

  it('a flood past both bounds is closed as it arrives: the server holds at most MAX_CONNECTIONS + MAX_OVERFLOW_CONNECTIONS', async () => {
    const port = await serveGateway({ maxConnections: 2, maxOverflowConnections: 3 });
    await holdConnections(port, 5);
    const dropped = await rawClient(port);
    dropped.socket.write(`${headOf('any')}Content-Length: ${QUERY.length}\r\n\r\n${QUERY}`);
    await dropped.closed;
    expect(dropped.received()).toBe('');
    expect(await openConnections()).toBe(5);
  });
});
