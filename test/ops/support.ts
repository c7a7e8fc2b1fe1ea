// Shared by the ops specs: a logger whose lines a test can read back, GraphQL over fetch, gateways.
import type { LogLevel } from '../../src/config/index.ts';
import { createGateway, type Gateway, type GatewayOptions } from '../../src/gateway.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { DEFAULTS } from '../support/defaults.ts';

type LogLine = Record<string, any> & { level: string; msg: string };

export function captureLogger(logLevel: LogLevel = 'debug') {
  const lines: LogLine[] = [];
  let text = '';
  const logger = createLogger(
    { ...DEFAULTS, logLevel },
    {
      write(line: string) {
        text += line;
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  );
  return {
    logger,
    lines,
    text: () => text,
    requestLines: () => lines.filter((line) => line.msg === 'graphql request'),
  };
}

export async function postGraphQL(
  fetchFn: (url: string, init: RequestInit) => Promise<Response> | Response,
  query: string,
  {
    key,
    headers = {},
    variables,
    operationName,
  }: { key?: string; headers?: Record<string, string>; variables?: unknown; operationName?: string } = {},
) {
  const response = await fetchFn('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body: JSON.stringify({ query, variables, operationName }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: JSON.parse(text) as { data?: any; errors?: any[]; extensions?: any },
  };
}

/** Gateways a spec builds (logging to their own capture, not the suite's file), closed together. */
export function gatewayFactory(defaults: GatewayOptions) {
  const built: Gateway[] = [];
  return {
    build(options: Partial<GatewayOptions> = {}): Gateway {
      const gateway = createGateway({ logger: captureLogger().logger, ...defaults, ...options });
      built.push(gateway);
      return gateway;
    },
    async closeAll(): Promise<void> {
      for (const gateway of built.splice(0)) await gateway.close();
    },
  };
}
