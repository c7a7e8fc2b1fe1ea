// OpenTelemetry traces (docs/tracing.md): a span per GraphQL request and a child span per upstream
// call, exported over OTLP/HTTP in both encodings to a receiver on a loopback port; W3C trace
// context continued from the caller and carried by every upstream call; nothing exported, and no
// span made, unless configured; never a key, a variable value or a body in any exported byte.
import fc from 'fast-check';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { EXAMPLE_QUERY } from '../../src/graphiql/example-query.ts';
import { startReferenceApi } from '../../src/reference-api/index.ts';
import { type ReceivedSpan, startOtlpReceiver } from '../support/otlp-receiver.ts';
import { refusedUrl } from '../support/refused-url.ts';
import { sendJson } from '../support/scripted-answers.ts';
import { captureLogger, gatewayFactory, postGraphQL } from './support.ts';

const api = await startReferenceApi();
const scripted = await startReferenceApi();
const receiver = await startOtlpReceiver();
const gateways = gatewayFactory({ upstreamUrl: api.url });

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;
const CALLER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
/** What a route template may look like: fixed words and `:params`, never a concrete id. */
const ROUTE_TEMPLATE = /^\/api(\/([a-z_]+|:[a-z_]+))*\/$/;

/** A gateway exporting to the receiver, configured as an operator would: through the OTEL_* variables. Each test closes it. */
function tracedGateway(env: Record<string, string> = {}, upstreamUrl = api.url): Gateway {
  const { tracing } = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...env });
  expect(tracing).toBeDefined();
  return createGateway({ upstreamUrl, tracing, logger: captureLogger().logger });
}

const run = (gateway: Gateway, query: string, options: Parameters<typeof postGraphQL>[2] = {}) =>
  postGraphQL(gateway.yoga.fetch as (url: string, init: RequestInit) => Promise<Response>, query, { key: api.keys.demo, ...options });

/** Closing a gateway exports the spans its batch processor still holds: the tests read them after it. */
async function exported(gateway: Gateway): Promise<ReceivedSpan[]> {
  await gateway.close();
  return receiver.spans();
}

const traceparentOf = (headers: Record<string, unknown>) => {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-(0[01])$/.exec(String(headers.traceparent));
  return match ? { traceId: match[1], spanId: match[2], flags: match[3] } : undefined;
};

beforeEach(() => {
  receiver.exports.length = 0;
  api.clearRequests();
  scripted.requests.length = 0;
});

afterAll(async () => {
  await gateways.closeAll();
  await receiver.close();
  await scripted.close();
  await api.close();
});

describe.each(['http/json', 'http/protobuf'])('spans exported over OTLP %s', (protocol) => {
  it("give a dashboard query one request span and, under it, one span per upstream call, named by its route template; the upstream sees each call's context", async () => {
    const gateway = tracedGateway({ OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
    const { body } = await run(gateway, EXAMPLE_QUERY);
    expect(body.errors).toBeUndefined();
    const calls = [...api.requests];
    const spans = await exported(gateway);

    expect(
      receiver.exports.every((e) => e.contentType.startsWith(protocol === 'http/json' ? 'application/json' : 'application/x-protobuf')),
    ).toBe(true);
    const requests = spans.filter((span) => span.kind === SERVER);
    expect(requests).toHaveLength(1);
    const request = requests[0] as ReceivedSpan;
    expect(request).toMatchObject({
      name: 'graphql.operation query Dashboard',
      parentSpanId: '',
      serviceName: 'org-graphql-gateway',
      attributes: { 'graphql.operation.type': 'query', 'graphql.operation.name': 'Dashboard', 'http.response.status_code': 200 },
    });
    expect(request.attributes['gateway.upstream.calls']).toBe(calls.length);

    const callSpans = spans.filter((span) => span.kind === CLIENT);
    expect(callSpans).toHaveLength(calls.length);
    expect(calls.length).toBeGreaterThan(5);
    for (const span of callSpans) {
      expect(span.traceId).toBe(request.traceId);
      expect(span.parentSpanId).toBe(request.spanId);
      const template = span.attributes['url.template'] as string;
      expect(template).toMatch(ROUTE_TEMPLATE);
      expect(span.name).toBe(`GET ${template}`);
      expect(span.attributes).toMatchObject({
        'http.request.method': 'GET',
        'http.response.status_code': 200,
        'gateway.upstream.attempts': 1,
      });
      expect(span.statusCode).not.toBe(ERROR);
    }
    expect(new Set(callSpans.map((span) => span.attributes['url.template']))).toEqual(
      new Set([
        '/api/organizations/',
        '/api/organizations/:organization_id/batch_exports/',
        '/api/organizations/:organization_id/domains/',
        '/api/organizations/:organization_id/members/',
      ]),
    );

    // Each upstream call carried its own span's context: the span ids the upstream saw are the call spans'.
    const sent = calls.map((call) => traceparentOf(call.headers));
    expect(sent.every((context) => context?.traceId === request.traceId && context.flags === '01')).toBe(true);
    expect(sent.map((context) => context?.spanId).sort()).toEqual(callSpans.map((span) => span.spanId).sort());
  });

  it("continue the caller's trace: the request span's parent is the caller's span, and its tracestate goes on upstream", async () => {
    const gateway = tracedGateway({ OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
    await run(gateway, '{ organizations(first: 1) { totalCount } }', {
      headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, tracestate: 'router=a1b2,vendor=x' },
    });
    const [call] = api.requests;
    const spans = await exported(gateway);
    const request = spans.find((span) => span.kind === SERVER);
    expect(request).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: CALLER_SPAN, traceState: 'router=a1b2,vendor=x' });
    expect(request?.name).toBe('graphql.operation query');
    const callSpan = spans.find((span) => span.kind === CLIENT);
    expect(callSpan).toMatchObject({ traceId: CALLER_TRACE, parentSpanId: request?.spanId });
    expect(traceparentOf(call?.headers ?? {})).toEqual({ traceId: CALLER_TRACE, spanId: callSpan?.spanId, flags: '01' });
    expect(call?.headers.tracestate).toBe('router=a1b2,vendor=x');
  });
});

describe('what a span never holds', () => {
  it('no key, no variable value, no record id and no body in any exported byte, over either encoding', async () => {
    const organization = (await run(gateways.build(), '{ organizations(first: 1) { nodes { id databaseId } } }')).body.data.organizations
      .nodes[0];
    const secret = 'name-only-the-variables-hold-7f3a';
    for (const protocol of ['http/json', 'http/protobuf']) {
      const gateway = tracedGateway({ OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
      const read = await run(gateway, 'query Read($id: UUID!) { organization(databaseId: $id) { name domains { totalCount } } }', {
        variables: { id: organization.databaseId },
      });
      expect(read.body.errors).toBeUndefined();
      const write = await run(
        gateway,
        'mutation Rename($input: UpdateOrganizationInput!) { updateOrganization(input: $input) { __typename } }',
        { variables: { input: { id: organization.id, name: secret } } },
      );
      expect(write.body.data.updateOrganization.__typename).toBe('UpdateOrganizationPayload');
      const spans = await exported(gateway);
      expect(spans.map((span) => span.name).sort()).toEqual([
        'GET /api/organizations/:id/',
        'GET /api/organizations/:organization_id/domains/',
        'PATCH /api/organizations/:id/',
        'graphql.operation mutation Rename',
        'graphql.operation query Read',
      ]);
      const bytes = Buffer.concat(receiver.exports.map((e) => e.body));
      for (const needle of [api.keys.demo, secret, organization.databaseId, organization.id]) {
        expect(bytes.includes(needle), `${protocol}: ${needle}`).toBe(false);
        expect(bytes.includes(Buffer.from(needle).toString('base64')), `${protocol}: ${needle} in base64`).toBe(false);
      }
      receiver.exports.length = 0;
    }
  });
});

describe('the request span', () => {
  it('names the operation cut to MAX_OPERATION_NAME_LENGTH, like the log line', async () => {
    const { tracing } = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const gateway = createGateway({ upstreamUrl: api.url, tracing, maxOperationNameLength: 20, logger: captureLogger().logger });
    await run(gateway, `query ${'Long'.repeat(100)} { organizations(first: 1) { totalCount } }`);
    const request = (await exported(gateway)).find((span) => span.kind === SERVER);
    expect(request?.name).toBe(`graphql.operation query ${'Long'.repeat(5).slice(0, 19)}…`);
    expect(request?.attributes['graphql.operation.name']).toBe(`${'Long'.repeat(5).slice(0, 19)}…`);
  });
});

describe('an upstream call span', () => {
  it('records a retried GET as one span with its attempts, and every attempt carries that span', async () => {
    let answered = 0;
    scripted.answerWith((_req, res) =>
      answered++ === 0 ? sendJson(res, 503, { detail: 'busy' }) : sendJson(res, 200, { count: 3, next: null, previous: null, results: [] }),
    );
    const gateway = tracedGateway({}, scripted.url);
    expect((await run(gateway, '{ organizations { totalCount } }')).body.data.organizations.totalCount).toBe(3);
    const [first, second] = scripted.requests;
    const spans = await exported(gateway);
    const call = spans.filter((span) => span.kind === CLIENT);
    expect(call).toHaveLength(1);
    expect(call[0]?.attributes).toMatchObject({
      'gateway.upstream.attempts': 2,
      'http.request.resend_count': 1,
      'http.response.status_code': 200,
    });
    expect(scripted.requests).toHaveLength(2);
    expect(first?.headers.traceparent).toBe(second?.headers.traceparent);
    expect(traceparentOf(first?.headers ?? {})?.spanId).toBe(call[0]?.spanId);
  });

  it('says where the answer came from: upstream on a miss, cache when CACHE answered it, with no upstream call', async () => {
    scripted.answerWith((_req, res) => sendJson(res, 200, { count: 3, next: null, previous: null, results: [] }));
    const { tracing } = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const gateway = createGateway({ upstreamUrl: scripted.url, tracing, cache: { store: 'memory' }, logger: captureLogger().logger });
    for (let i = 0; i < 2; i++) expect((await run(gateway, '{ organizations { totalCount } }')).body.data.organizations.totalCount).toBe(3);
    const calls = (await exported(gateway)).filter((span) => span.kind === CLIENT);
    expect(calls.map((span) => span.attributes['gateway.upstream.source'])).toEqual(['upstream', 'cache']);
    expect(scripted.requests).toHaveLength(1);
  });

  it('marks a failed call and its request as errors, with the status and the error code', async () => {
    scripted.answerWith((_req, res) => sendJson(res, 403, { detail: 'missing scope organization:read' }));
    const gateway = tracedGateway({}, scripted.url);
    expect((await run(gateway, '{ organizations { totalCount } }')).body.errors?.[0]?.extensions.code).toBe('FORBIDDEN');
    const spans = await exported(gateway);
    expect(spans.find((span) => span.kind === CLIENT)).toMatchObject({
      statusCode: ERROR,
      attributes: { 'http.response.status_code': 403, 'error.type': '403' },
    });
    expect(spans.find((span) => span.kind === SERVER)).toMatchObject({
      statusCode: ERROR,
      attributes: { 'error.type': 'FORBIDDEN', 'gateway.graphql.error_codes': ['FORBIDDEN'] },
    });
  });
});

describe('settings', () => {
  it('OTEL_SERVICE_NAME names the service, and OTEL_EXPORTER_OTLP_HEADERS go with every export', async () => {
    const gateway = tracedGateway({
      OTEL_SERVICE_NAME: 'gateway-eu',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=acme,authorization=Basic%20dG9rZW4%3D',
    });
    await run(gateway, '{ organizations(first: 1) { totalCount } }');
    const spans = await exported(gateway);
    expect(spans.length).toBeGreaterThan(0);
    expect(spans.every((span) => span.serviceName === 'gateway-eu')).toBe(true);
    expect(receiver.exports[0]?.headers).toMatchObject({ 'x-tenant': 'acme', authorization: 'Basic dG9rZW4=' });
  });

  it("follows the caller's unsampled flag (parent-based sampling): nothing exported, the flag passed on", async () => {
    const gateway = tracedGateway();
    await run(gateway, '{ organizations(first: 1) { totalCount } }', { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-00` } });
    const sent = traceparentOf(api.requests[0]?.headers ?? {});
    expect(await exported(gateway)).toEqual([]);
    expect(sent).toMatchObject({ traceId: CALLER_TRACE, flags: '00' });
  });

  it('OTEL_TRACES_SAMPLER=always_off exports nothing; traceidratio with OTEL_TRACES_SAMPLER_ARG=0 neither, 1 everything', async () => {
    for (const [env, expected] of [
      [{ OTEL_TRACES_SAMPLER: 'always_off' }, 0],
      [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }, 0],
      [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' }, 2],
    ] as const) {
      receiver.exports.length = 0;
      const gateway = tracedGateway(env);
      await run(gateway, '{ organizations(first: 1) { totalCount } }');
      expect(await exported(gateway), JSON.stringify(env)).toHaveLength(expected);
    }
  });
});

describe('a collector that refuses the spans', () => {
  it('fails no request, and the spans lost are one warning in the log; closing still ends', async () => {
    scripted.answerWith((_req, res) => sendJson(res, 400, { error: 'bad tenant' }));
    const { logger, lines } = captureLogger();
    const gateway = createGateway({
      upstreamUrl: api.url,
      tracing: loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: scripted.url }).tracing,
      logger,
    });
    for (let i = 0; i < 3; i++) expect((await run(gateway, '{ organizations(first: 1) { totalCount } }')).body.errors).toBeUndefined();
    await gateway.close();
    expect(scripted.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/traces']);
    const warnings = lines.filter((line) => line.msg.startsWith('tracing:'));
    expect(warnings).toMatchObject([{ level: 'warn', msg: 'tracing: spans could not be exported and were dropped', spansLost: 6 }]);
  });

  it('gives up at shutdown after the time it is given, when the collector does not answer', async () => {
    const { logger, lines } = captureLogger();
    const gateway = createGateway({
      upstreamUrl: api.url,
      tracing: loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: await refusedUrl() }).tracing,
      logger,
    });
    await run(gateway, '{ organizations(first: 1) { totalCount } }');
    const started = performance.now();
    await gateway.close(200); // the exporter would retry a refused connection for up to 10 s
    expect(performance.now() - started).toBeLessThan(3000); // far below the exporter's 10 s of retries, with room for a loaded machine
    const warnings = lines.filter((line) => line.msg.startsWith('tracing:'));
    expect(warnings).toMatchObject([{ level: 'warn', msg: 'tracing: spans not exported in time at shutdown were dropped' }]);
    // What was left of the 200 ms once the rest had closed (a few ms on a loaded machine).
    expect(warnings[0]?.withinMs).toBeLessThanOrEqual(200);
    expect(warnings[0]?.withinMs).toBeGreaterThan(100);
  });
  it('counts closing the rest against that time: a readiness probe in flight is cut, not waited for', async () => {
    // Keyless: the readiness probe, which the upstream never answers; a caller's call is answered.
    scripted.answerWith((req, res) =>
      req.headers.authorization ? sendJson(res, 200, { count: 0, next: null, previous: null, results: [] }) : undefined,
    );
    const { logger, lines } = captureLogger();
    const gateway = createGateway({
      upstreamUrl: scripted.url,
      readinessTimeoutMs: 20_000,
      tracing: loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: await refusedUrl() }).tracing,
      logger,
    });
    await run(gateway, '{ organizations(first: 1) { totalCount } }');
    void gateway.yoga.fetch('http://gateway.test/readiness');
    await expect.poll(() => scripted.requests.filter((r) => !r.headers.authorization).length).toBe(1);
    const started = performance.now();
    await gateway.close(500);
    expect(performance.now() - started).toBeLessThan(5000); // the probe alone would hold it 20 s
    const [warning] = lines.filter((line) => line.msg.startsWith('tracing:'));
    expect(warning?.withinMs).toBeLessThanOrEqual(500);
  });
});

describe('without an exporter', () => {
  it('passes a valid incoming context upstream unchanged, and sends none when the caller sent none or a malformed one', async () => {
    const gateway = gateways.build();
    await run(gateway, '{ organizations(first: 1) { totalCount } }', {
      headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, tracestate: 'router=a1b2' },
    });
    expect(api.requests[0]?.headers).toMatchObject({ traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, tracestate: 'router=a1b2' });
    // The contract's whole list of headers that go upstream: these two are the only ones a caller adds.
    expect(Object.keys(api.requests[0]?.headers ?? {}).sort()).toEqual([
      'accept',
      'authorization',
      'connection',
      'host',
      'traceparent',
      'tracestate',
      'user-agent',
      'x-request-id',
    ]);
    for (const traceparent of [undefined, 'garbage', `00-${'0'.repeat(32)}-${CALLER_SPAN}-01`, `ff-${CALLER_TRACE}-${CALLER_SPAN}-01`]) {
      api.clearRequests();
      await run(gateway, '{ organizations(first: 1) { totalCount } }', {
        headers: traceparent ? { traceparent, tracestate: 'router=a1b2' } : {},
      });
      expect(api.requests[0]?.headers.traceparent, traceparent).toBeUndefined();
      expect(api.requests[0]?.headers.tracestate, traceparent).toBeUndefined();
    }
  });

  it("sends upstream the caller's own ids in a well-formed traceparent, or nothing, whatever trace headers come in", async () => {
    const gateway = gateways.build();
    const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
    const traceparent = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 80 }),
      fc
        .tuple(fc.constantFrom('00', '01', 'ff', 'zz'), hex(32), hex(16), fc.constantFrom('00', '01', '03', 'ff', 'x'))
        .map((parts) => parts.join('-')),
    );
    const tracestate = fc.oneof(fc.string({ unit: 'grapheme-ascii', maxLength: 80 }), fc.constant('a=1,b@c=x y,bad member,=1'));
    await fc.assert(
      fc.asyncProperty(traceparent, tracestate, async (incoming, state) => {
        api.clearRequests();
        await run(gateway, '{ organizations(first: 1) { totalCount } }', { headers: { traceparent: incoming, tracestate: state } });
        const sent = api.requests[0]?.headers ?? {};
        const wellFormed = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(incoming.trim());
        const valid = wellFormed && !/^0+$/.test(wellFormed[1] as string) && !/^0+$/.test(wellFormed[2] as string);
        if (!sent.traceparent) {
          expect(valid, incoming).toBeFalsy();
          expect(sent.tracestate).toBeUndefined();
          return;
        }
        expect(sent.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
        // Another version may carry more fields: only its ids and its sampled flag go on.
        expect(sent.traceparent.slice(3, 52)).toBe(incoming.trim().slice(3, 52));
        const members = state.split(',').map((member) => member.trim());
        for (const member of sent.tracestate?.split(',') ?? []) expect(members).toContain(member);
      }),
      { numRuns: 100 },
    );
  });

  it('is the default: no OTEL_* variable, OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED turns export off', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
  });
});
