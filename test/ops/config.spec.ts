// The operations settings: each with its default, and a clear ConfigError for a bad value.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadLoggingConfig } from '../../src/config.ts';

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
    });
    expect(loadConfig({ CORS_ORIGINS: ' * ' }).corsOrigins).toBe('*');
    expect(loadLoggingConfig({ LOG_LEVEL: 'silent' })).toEqual({ logLevel: 'silent', logFile: undefined });
  });

  it('bound JSON values to 32 levels by default, MAX_JSON_DEPTH from 1 to 256', () => {
    expect(loadConfig({}).maxJsonDepth).toBe(32);
    expect(loadConfig({ MAX_JSON_DEPTH: '64' }).maxJsonDepth).toBe(64);
    expect(() => loadConfig({ MAX_JSON_DEPTH: '0' })).toThrow(/MAX_JSON_DEPTH must be a whole number from 1 to 256/);
    expect(() => loadConfig({ MAX_JSON_DEPTH: '257' })).toThrow(ConfigError);
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
  ])('refuse %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });
});
