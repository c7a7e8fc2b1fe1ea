// Browser-facing options. CORS is open by default: the gateway authenticates by bearer key only,
// never by cookie, so a foreign page can do nothing with it that it could not do from a server;
// credentials are never allowed. CSRF prevention (off by default, per the contract) makes requests
// a browser would send without a pre-flight carry a header only a pre-flighted page can set.
import { useCSRFPrevention } from '@graphql-yoga/plugin-csrf-prevention';
import { getCORSHeadersByRequestAndOptions } from '@whatwg-node/server';
import type { CORSOptions, Plugin } from 'graphql-yoga';

/** Any of these headers satisfies CSRF prevention (Apollo Client sends the second). */
const CSRF_HEADERS = ['x-graphql-csrf', 'apollo-require-preflight'];

export function corsOptions(origins: '*' | readonly string[]): CORSOptions {
  return {
    origin: origins === '*' ? ['*'] : [...origins],
    methods: ['GET', 'POST', 'OPTIONS'],
    credentials: false,
    // The response headers the contract gives callers: a page can read them only when listed here
    // (a RetryLink's `retryIf` tests Retry-After).
    exposedHeaders: ['x-request-id', 'retry-after', 'idempotent-replayed'],
    maxAge: 600,
  };
}

/**
 * The CORS headers of an answer to `request`, as Yoga's CORS plugin (useCORS, the same function)
 * adds them from these options; null without an `Origin`. For answers made outside Yoga (the error boundary).
 */
export function corsHeadersOf(request: Pick<Request, 'headers'>, options: CORSOptions): Record<string, string> | null {
  return getCORSHeadersByRequestAndOptions(request as Request, options);
}

export function csrfPlugins(enabled: boolean): Plugin[] {
  return enabled ? [useCSRFPrevention({ requestHeaders: CSRF_HEADERS })] : [];
}
