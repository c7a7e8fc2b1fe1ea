// The operations settings: each with its default, and a clear ConfigError for a bad value.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadLoggingConfig, resolveConfig } from '../../src/config/index.ts';

describe('operations settings', () => {
  it('default to info logs on stdout, a 10 s grace period, open CORS, no CSRF header, metrics and the debug extension on', () => {
    expect(loadConfig({})).toMatchObject({
      logLevel: 'info',
      logFile: undefined,
      shutdownGraceMs: 10_000,
      readinessTimeoutMs: 2000,
      corsOrigins: '*',
      csrfPrevention: false,
      metricsEnabled: true,
      debugUpstreamCalls: true,
      maxOperationNameLength: 100,
      metricsMaxLabelValues: 100,
      logMaxLineLength: 16_384,
      queryLimits: { maxIntrospectionDepth: 20, maxIntrospectionTypes: 10 },
    });
  });

  it('read every variable', () => {
    const config = loadConfig({
      LOG_LEVEL: 'DEBUG',
      LOG_FILE: ' /var/log/gateway.ndjson ',
      SHUTDOWN_GRACE_MS: '0',
      READINESS_TIMEOUT_MS: '500',
      CORS_ORIGINS: 'https://app.example.com, http://localhost:3000/',
      CSRF_PREVENTION: 'true',
      METRICS_ENABLED: 'off',
      DEBUG_UPSTREAM_CALLS: '0',
      MAX_OPERATION_NAME_LENGTH: '64',
      METRICS_MAX_LABEL_VALUES: '50',
      LOG_MAX_LINE_LENGTH: '4096',
      MAX_INTROSPECTION_DEPTH: '16',
      MAX_INTROSPECTION_TYPES: '0',
    });
    expect(config).toMatchObject({
      logLevel: 'debug',
      logFile: '/var/log/gateway.ndjson',
      shutdownGraceMs: 0,
      readinessTimeoutMs: 500,
      corsOrigins: ['https://app.example.com', 'http://localhost:3000'],
      csrfPrevention: true,
      metricsEnabled: false,
      debugUpstreamCalls: false,
      maxOperationNameLength: 64,
      metricsMaxLabelValues: 50,
      logMaxLineLength: 4096,
      queryLimits: { maxIntrospectionDepth: 16, maxIntrospectionTypes: 0 },
    });
    expect(loadConfig({ CORS_ORIGINS: ' * ' }).corsOrigins).toBe('*');
    expect(loadLoggingConfig({ LOG_LEVEL: 'silent' })).toEqual({ logLevel: 'silent', logFile: undefined, logMaxLineLength: 16_384 });
  });

  it('bound JSON values to 32 levels by default, MAX_JSON_DEPTH from 1 to 256', () => {
    expect(loadConfig({}).maxJsonDepth).toBe(32);
    expect(loadConfig({ MAX_JSON_DEPTH: '64' }).maxJsonDepth).toBe(64);
    expect(() => loadConfig({ MAX_JSON_DEPTH: '0' })).toThrow(/MAX_JSON_DEPTH must be a whole number from 1 to 256/);
    expect(() => loadConfig({ MAX_JSON_DEPTH: '257' })).toThrow(ConfigError);
  });

  it('name every accepted spelling of a boolean (issue 51)', () => {
    expect(() => loadConfig({ CSRF_PREVENTION: 'maybe' })).toThrow(
      'CSRF_PREVENTION must be true or false: true, 1, on, yes for true; false, 0, off, no for false (got "maybe").',
    );
    for (const spelling of ['TRUE', '1', 'On', 'yes']) expect(loadConfig({ CSRF_PREVENTION: spelling }).csrfPrevention).toBe(true);
    for (const spelling of ['false', '0', 'OFF', 'No']) expect(loadConfig({ CSRF_PREVENTION: spelling }).csrfPrevention).toBe(false);
  });

  it.each([
    [{ LOG_LEVEL: 'verbose' }, /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/],
    [{ SHUTDOWN_GRACE_MS: '-1' }, /SHUTDOWN_GRACE_MS must be a whole number from 0 to 600000/],
    [{ READINESS_TIMEOUT_MS: '0' }, /READINESS_TIMEOUT_MS must be a whole number from 1/],
    [{ CORS_ORIGINS: 'app.example.com' }, /CORS_ORIGINS must be \* or comma-separated origins/],
    [{ CORS_ORIGINS: 'https://app.example.com/path' }, /CORS_ORIGINS must be/],
    [{ CORS_ORIGINS: 'https://a.example.com,*' }, /CORS_ORIGINS must be/],
    [{ CSRF_PREVENTION: 'maybe' }, /CSRF_PREVENTION must be true or false/],
    [{ METRICS_ENABLED: '2' }, /METRICS_ENABLED must be true or false/],
    [{ DEBUG_UPSTREAM_CALLS: 'y' }, /DEBUG_UPSTREAM_CALLS must be true or false/],
    [{ MAX_OPERATION_NAME_LENGTH: '8' }, /MAX_OPERATION_NAME_LENGTH must be a whole number from 16 to 10000/],
    [{ METRICS_MAX_LABEL_VALUES: '0' }, /METRICS_MAX_LABEL_VALUES must be a whole number from 1/],
    [{ LOG_MAX_LINE_LENGTH: '100' }, /LOG_MAX_LINE_LENGTH must be a whole number from 1024/],
    [{ MAX_INTROSPECTION_DEPTH: '0' }, /MAX_INTROSPECTION_DEPTH must be a whole number from 1 to 1000/],
    [{ MAX_INTROSPECTION_TYPES: '-1' }, /MAX_INTROSPECTION_TYPES must be a whole number from 0/],
  ])('refuse %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('the admitted tail bound', () => {
  it.each([
    [{}, 5000],
    [{ REQUEST_DEADLINE_MS: '10000' }, 3000],
    [{ REQUEST_DEADLINE_MS: '10000', ADMISSION_MAX_WAIT_MS: '0' }, 1000],
    [{ REQUEST_DEADLINE_MS: '2000', ADMISSION_MAX_WAIT_MS: '10000' }, 2000],
    [{ MAX_ADMITTED_LATENCY_MS: '8000' }, 8000],
  ])(
    'MAX_ADMITTED_LATENCY_MS of %j is %d: the longest wait plus a tenth of the deadline unless set, never past the deadline',
    (env, expected) => {
      expect(loadConfig(env).maxAdmittedLatencyMs).toBe(expected);
    },
  );

  it('follows the deadline and wait a gateway is built with in code', () => {
    expect(resolveConfig({ requestDeadlineMs: 4000, admissionMaxWaitMs: 500 }).maxAdmittedLatencyMs).toBe(900);
    expect(resolveConfig({ maxAdmittedLatencyMs: 1234 }).maxAdmittedLatencyMs).toBe(1234);
  });
});

describe('connection and upstream answer bounds', () => {
  it('default to a 10 s headers and 30 s request timeout, 5 s keep-alive, 800 connections (and 1000 more held to be refused), 8 MiB upstream answers, 256 MiB of them buffered at once and 100,000 values per answer', () => {
    expect(loadConfig({})).toMatchObject({
      server: {
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        keepAliveTimeoutMs: 5000,
        maxConnections: 800,
        maxOverflowConnections: 1000,
      },
      maxUpstreamResponseBytes: 8 * 1024 * 1024,
      maxUpstreamBufferedBytes: 256 * 1024 * 1024,
      maxUpstreamJsonValues: 100_000,
    });
  });

  it('read every variable', () => {
    const config = loadConfig({
      SERVER_HEADERS_TIMEOUT_MS: '2000',
      SERVER_REQUEST_TIMEOUT_MS: '4000',
      SERVER_KEEP_ALIVE_TIMEOUT_MS: '65000',
      MAX_CONNECTIONS: '100',
      MAX_OVERFLOW_CONNECTIONS: '0',
      MAX_UPSTREAM_RESPONSE_BYTES: '1048576',
      MAX_UPSTREAM_BUFFERED_BYTES: '67108864',
      MAX_UPSTREAM_JSON_VALUES: '20000',
    });
    expect(config).toMatchObject({
      server: {
        headersTimeoutMs: 2000,
        requestTimeoutMs: 4000,
        keepAliveTimeoutMs: 65_000,
        maxConnections: 100,
        maxOverflowConnections: 0,
      },
      maxUpstreamResponseBytes: 1_048_576,
      maxUpstreamBufferedBytes: 67_108_864,
      maxUpstreamJsonValues: 20_000,
    });
  });

  it.each([
    [
      { SERVER_HEADERS_TIMEOUT_MS: '5000', SERVER_REQUEST_TIMEOUT_MS: '4000' },
      /SERVER_HEADERS_TIMEOUT_MS \(5000\) must not be longer than SERVER_REQUEST_TIMEOUT_MS \(4000\)/,
    ],
    [{ SERVER_HEADERS_TIMEOUT_MS: '50' }, /SERVER_HEADERS_TIMEOUT_MS must be a whole number from 100/],
    [{ SERVER_REQUEST_TIMEOUT_MS: '0' }, /SERVER_REQUEST_TIMEOUT_MS must be a whole number from 100/],
    [{ SERVER_KEEP_ALIVE_TIMEOUT_MS: 'long' }, /SERVER_KEEP_ALIVE_TIMEOUT_MS must be a whole number/],
    [{ MAX_CONNECTIONS: '0' }, /MAX_CONNECTIONS must be a whole number from 1/],
    [{ MAX_UPSTREAM_RESPONSE_BYTES: '100' }, /MAX_UPSTREAM_RESPONSE_BYTES must be a whole number from 1024/],
  ])('refuse %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('tracing settings (OTEL_*)', () => {
  it('export nothing by default, nor with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'gw', OTEL_TRACES_SAMPLER: 'always_on' }).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
  });

  it('with an endpoint: protobuf to its /v1/traces, parent-based always-on sampling, no headers', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).toEqual({
      endpoint: 'http://collector:4318/v1/traces',
      protocol: 'http/protobuf',
      headers: {},
      serviceName: undefined,
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
    });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otlp.example.com/tenant/7/' }).tracing?.endpoint).toBe(
      'https://otlp.example.com/tenant/7/v1/traces',
    );
  });

  it('read every variable; the traces-only ones win over the general ones', () => {
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces.example.com/custom',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
        OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'HTTP/JSON',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=acme, authorization=Basic%20YWJj',
        OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'X-Tenant=traces',
        OTEL_SERVICE_NAME: ' gateway-eu ',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
      }).tracing,
    ).toEqual({
      endpoint: 'http://traces.example.com/custom',
      protocol: 'http/json',
      headers: { 'x-tenant': 'traces', authorization: 'Basic YWJj' },
      serviceName: 'gateway-eu',
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    });
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing?.endpoint).toBe('http://localhost:4318/v1/traces');
  });

  it.each([
    [{ OTEL_TRACES_EXPORTER: 'zipkin' }, /OTEL_TRACES_EXPORTER must be otlp or none/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an absolute http\(s\) URL/],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector' }, /OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an absolute http\(s\) URL/],
    [
      { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      /OTEL_EXPORTER_OTLP_PROTOCOL must be one of http\/protobuf, http\/json/,
    ],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER must be one of always_on/],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER_ARG: '1.5' }, /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER_ARG: '-0.1' }, /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/],
    [{ OTEL_SDK_DISABLED: 'maybe' }, /OTEL_SDK_DISABLED must be true or false/],
  ])('refuse %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('refuse malformed exporter headers without repeating their values (often a credential)', () => {
    for (const raw of ['authorization', 'authorization=%E0%A4%A', '=s3cr3t-value', 'bad header=s3cr3t-value']) {
      const attempt = () => loadConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_HEADERS: `x-ok=1,${raw}` });
      expect(attempt, raw).toThrow(/OTEL_EXPORTER_OTLP_HEADERS must be name=value pairs/);
      const message = (() => {
        try {
          attempt();
        } catch (error) {
          return (error as Error).message;
        }
      })();
      expect(message).not.toMatch(/s3cr3t|%E0/);
    }
  });
});

describe("the contract's settings", () => {
  // docs/configuration.md is checked against DEFAULTS; these are the values the contract itself names.
  it('default to port 4000, 250 upstream calls, a 10 s upstream timeout, 5 s polls and a day of idempotency keys', () => {
    expect(loadConfig({})).toMatchObject({
      port: 4000,
      maxUpstreamCalls: 250,
      upstreamTimeoutMs: 10_000,
      subscriptions: { pollMs: 5000 },
      idempotency: { ttlMs: 86_400_000 },
      cache: undefined,
      upstreamBudget: undefined,
    });
  });

  it('name the scheme of an UPSTREAM_URL that is not http(s) as the problem (issue 51)', () => {
    expect(() => loadConfig({ UPSTREAM_URL: 'ftp://files.example.com/pub' })).toThrow(
      'UPSTREAM_URL must be an http(s) URL: its scheme, ftp:, is not supported (use http:// or https://).',
    );
    expect(() => loadConfig({ UPSTREAM_URL: 'upstream.internal:8010' })).toThrow(
      /UPSTREAM_URL must be an http\(s\) URL: its scheme, upstream.internal:, is not supported/,
    );
    expect(loadConfig({ UPSTREAM_URL: 'https://api.example.com/v2/' }).upstreamUrl).toBe('https://api.example.com/v2');
  });

  it('accept polls down to 250 ms, and refuse anything faster', () => {
    expect(loadConfig({ SUBSCRIPTION_POLL_MS: '250' }).subscriptions.pollMs).toBe(250);
    expect(() => loadConfig({ SUBSCRIPTION_POLL_MS: '249' })).toThrow(ConfigError);
  });
});
