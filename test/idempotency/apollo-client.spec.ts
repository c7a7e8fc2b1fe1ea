// The Apollo Client example (examples/apollo-idempotency.ts) against the gateway over HTTP and the
// reference API: when the answer to a mutation is lost on its way back, RetryLink sends it again with
// the same Idempotency-Key, gets the first response replayed, and the upstream saw one write; the
// next mutation call gets a key of its own.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApolloClient, pauseAndUnpause } from '../../examples/apollo-idempotency.ts';
import { type HttpHarness, startHttpHarness } from '../support/http-server.ts';

let h: HttpHarness;

beforeAll(async () => {
  h = await startHttpHarness();
});

afterAll(() => h?.close());

beforeEach(() => h.api.clearRequests());

interface Attempt {
  operationName: string;
  idempotencyKey: string | null;
  replayed: string | null;
}

/** fetch, recording each attempt; `lose` decides, per attempt, whether its answer is lost after the gateway sent it. */
function recordingFetch(lose: (attempt: Attempt, index: number) => boolean) {
  const attempts: Attempt[] = [];
  const wrapped: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    const attempt: Attempt = {
      operationName: JSON.parse(String(init?.body)).operationName,
      idempotencyKey: headers.get('idempotency-key'),
      replayed: null,
    };
    attempts.push(attempt);
    const response = await fetch(input, init);
    attempt.replayed = response.headers.get('idempotent-replayed');
    if (lose(attempt, attempts.length - 1)) {
      await response.arrayBuffer(); // the gateway answered in full; the client never hears of it
      throw new TypeError('fetch failed: the connection was reset');
    }
    return response;
  };
  return { attempts, fetch: wrapped };
}

const writes = () => h.api.requests.filter((request) => request.method !== 'GET').map((request) => request.path.split('/').at(-2));

describe('examples/apollo-idempotency.ts', () => {
  it('a lost answer is retried with the same key and replayed: one write per mutation call', async () => {
    let lost = false;
    const recording = recordingFetch((attempt) => {
      if (lost || attempt.operationName !== 'PauseBatchExport') return false;
      lost = true;
      return true;
    });
    const lines: string[] = [];
    await pauseAndUnpause(createApolloClient({ url: h.url, key: h.api.keys.demo, fetch: recording.fetch }), (line) => lines.push(line));

    expect(lines).toEqual([expect.stringMatching(/^paused "/), 'unpaused it again (paused: false)']);
    expect(writes()).toEqual(['pause', 'unpause']);
    const [dashboard, pause, pauseRetry, unpause] = recording.attempts;
    expect(recording.attempts).toHaveLength(4);
    expect(dashboard).toEqual({ operationName: 'Dashboard', idempotencyKey: null, replayed: null });
    expect(pause).toEqual({ operationName: 'PauseBatchExport', idempotencyKey: expect.stringMatching(/^[\w-]{36}$/), replayed: null });
    expect(pauseRetry).toEqual({ ...pause, replayed: 'true' });
    expect(unpause).toEqual({ operationName: 'UnpauseBatchExport', idempotencyKey: expect.any(String), replayed: null });
    expect(unpause?.idempotencyKey).not.toBe(pause?.idempotencyKey);
  });

  it('every answer of one mutation lost until the last attempt: still one write, and the last attempt gets it', async () => {
    const recording = recordingFetch((attempt) => attempt.operationName === 'PauseBatchExport' && recording.attempts.length < 4);
    const lines: string[] = [];
    await pauseAndUnpause(createApolloClient({ url: h.url, key: h.api.keys.demo, fetch: recording.fetch }), (line) => lines.push(line));
    expect(lines).toHaveLength(2);
    const pauses = recording.attempts.filter((attempt) => attempt.operationName === 'PauseBatchExport');
    expect(pauses.map((attempt) => attempt.replayed)).toEqual([null, 'true', 'true']);
    expect(new Set(pauses.map((attempt) => attempt.idempotencyKey)).size).toBe(1);
    expect(writes()).toEqual(['pause', 'unpause']);
  });
});
