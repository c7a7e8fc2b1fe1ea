// Shared by the idempotency specs: a createDomain mutation posted with an Idempotency-Key, over
// HTTP (fetch, so a caller can go away mid-request) or through yoga.fetch, read back as text.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Gateway } from '../../src/gateway.ts';
import { globalId } from '../../src/schema/global-id.ts';

export const CREATE_DOMAIN = `mutation CreateDomain($input: CreateDomainInput!) {
  createDomain(input: $input) { __typename ... on CreateDomainPayload { domain { id domain } } ... on ValidationError { message field } }
}`;

export const ORGANIZATIONS = '{ organizations { totalCount } }';

interface Posted {
  status: number;
  headers: Headers;
  /** The body exactly as sent. */
  text: string;
  body: { data?: any; errors?: any[] };
}

interface PostOptions {
  key?: string;
  idempotencyKey?: string;
  query?: string;
  variables?: unknown;
  signal?: AbortSignal;
}

/** `target`: a URL (over HTTP) or a gateway (yoga.fetch). */
export async function post(target: string | Gateway, options: PostOptions): Promise<Posted> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/graphql-response+json' };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  const init = {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: options.query ?? CREATE_DOMAIN, variables: options.variables }),
    signal: options.signal,
  };
  const response = typeof target === 'string' ? await fetch(target, init) : await target.yoga.fetch('http://gateway.test/graphql', init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

/** createDomain's variables for an organization id (a REST UUID). */
export const domainInput = (organization: string, domain: string) => ({
  input: { organizationId: globalId('Organization', organization), domain },
});

/** A retry as a client makes it: again after each 409 that says the first request is still running (Retry-After). */
export async function retryUntilSettled(target: string | Gateway, options: PostOptions): Promise<Posted> {
  for (;;) {
    const retry = await post(target, options);
    if (retry.status !== 409 || retry.headers.get('retry-after') === null) return retry;
    await sleep(25);
  }
}
