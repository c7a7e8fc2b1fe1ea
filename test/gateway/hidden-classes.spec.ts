// The per-request objects every resolver and upstream call reads keep one V8 hidden class from
// request to request, in V8's fast mode. An object literal with a getter is made in dictionary mode,
// and an object spread then added to gets a class of its own: either makes every read of it miss
// V8's caches, and V8 build a class per request (docs/performance-gap.md#cut-on-2026-11-29). V8's
// own checks (`%HaveSameMap`, `%HasFastProperties`) say so; nothing here is timed.
import { setFlagsFromString } from 'node:v8';
import { afterAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.ts';
import { createRequestTransport } from '../../src/rest/request-transport.ts';
import { createUpstreamTransport } from '../../src/rest/transport.ts';
import { TRANSPORT_DEFAULTS } from '../support/defaults.ts';

setFlagsFromString('--allow-natives-syntax');
const haveSameClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
const isFastMode = new Function('a', 'return %HasFastProperties(a)') as (a: object) => boolean;

const transport = createUpstreamTransport({ baseUrl: 'http://127.0.0.1:9', ...TRANSPORT_DEFAULTS });
afterAll(() => transport.close());
const limits = { maxCalls: 10, concurrency: 4, deadlineMs: 1000, maxLookupScanPages: 10 };
const request = () => new Request('http://gateway.test/graphql', { headers: { authorization: 'Bearer phx_hidden_classes' } });

describe('per-request objects keep one hidden class', () => {
  it('the context, from request to request', () => {
    const [first, second] = [createContext(transport, request(), limits), createContext(transport, request(), limits)];
    expect(isFastMode(first)).toBe(true);
    expect(haveSameClass(first, second)).toBe(true);
  });

  it('the request transport each context calls through', () => {
    const made = () => createRequestTransport(transport, limits);
    const [first, second] = [made(), made()];
    expect(isFastMode(first)).toBe(true);
    expect(haveSameClass(first, second)).toBe(true);
  });
});
