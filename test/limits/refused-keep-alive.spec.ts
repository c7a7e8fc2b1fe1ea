// A request refused under overload before its body is read keeps its keep-alive connection when
// the body is small and untouched (Node drops it after the answer): a refused client does not
// reconnect for every refusal. A large or chunked body still closes it (query-limits.spec.ts: the
// 413 of a chunked body). Against the reference API answering in 1 s, so one request holds the
// capacity of 1 while another waits.
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { type HttpHarness, startHttpHarness } from '../support/http-server.ts';

let harness: HttpHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

interface Sent {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  reusedSocket: boolean;
}

function post(url: string, key: string, body: string, agent: Agent, headers: Record<string, string> = {}): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode as number, headers: res.headers, body: text, reusedSocket: req.reusedSocket }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const QUERY = JSON.stringify({ query: '{ organizations(first: 1) { nodes { name } } }' });

it('keeps the connection of a request refused before its small body was read, and serves the next request on it', async () => {
  harness = await startHttpHarness(
    { faults: { delayMs: 1000 } },
    { admissionCapacity: 1, admissionMaxWaitMs: 1500, upstreamGetRetries: 0 },
  );
  const { url, api } = harness;
  const key = api.keys.demo;
  const busy = new Agent({ keepAlive: true, maxSockets: 4 });
  const refusedClient = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = post(url, key, QUERY, busy);
    await expect.poll(() => api.requests.length).toBe(1);
    const queued = post(url, key, QUERY, busy);
    await expect
      .poll(async () => (await harness?.gateway.metrics.registry.getSingleMetricAsString('gateway_admission_queued')) ?? '')
      .toMatch(/ 1$/m);

    // Not JSON: read, this body would be a 400. Refused before reading, it is left to Node.
    const refused = await post(url, key, '{"query": ', refusedClient);
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body).errors[0].extensions.code).toBe('OVERLOADED');
    expect(refused.headers.connection).toBe('keep-alive');

    await Promise.all([first, queued]);
    const next = await post(url, key, QUERY, refusedClient);
    expect(next).toMatchObject({ status: 200, reusedSocket: true });
    expect(JSON.parse(next.body).data.organizations.nodes).toHaveLength(1);
  } finally {
    busy.destroy();
    refusedClient.destroy();
  }
});
