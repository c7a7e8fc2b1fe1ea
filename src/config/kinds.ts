// The kinds of value a setting takes: each a zod schema from the variable's text to its typed value,
// and the words that say what it accepts (in an error message and in docs/configuration.md).
import { z } from 'zod';
import { type OperationManifest, readOperationManifest } from '../persisted/manifest.ts';
import { isRedisUrl, redisClusterTarget } from './redis-target.ts';
import { type BudgetWindow, parseUpstreamBudget } from './upstream-budget.ts';

export interface Kind<T> {
  schema: z.ZodType<T, string>;
  /** What a value must be: "a whole number from 1 to 256". */
  accepts: string;
  /** The value may hold a credential: no error repeats it, and the schema's own messages say what is wrong. */
  secret?: boolean;
}

/** A message of the setting's own, after its name, instead of "must be <accepts> (got …)". */
function refuse(ctx: z.core.ParsePayload<string>, message: string): never {
  ctx.issues.push({ code: 'custom', message: ` ${message}`, input: ctx.value });
  return z.NEVER as never;
}

/** A schema that parses the text itself: an Error it throws is told as `NAME: message`. */
function parsedBy<T>(parse: (text: string) => T): z.ZodType<T, string> {
  return z.string().transform((text, ctx) => {
    try {
      return parse(text.trim());
    } catch (error) {
      ctx.issues.push({ code: 'custom', message: `: ${(error as Error).message}`, input: text });
      return z.NEVER;
    }
  });
}

export function wholeNumber(min: number, max: number): Kind<number> {
  return {
    schema: z.string().trim().regex(/^\d+$/).transform(Number).pipe(z.number().min(min).max(max)),
    accepts: `a whole number from ${min} to ${max}`,
  };
}

export function ratio(): Kind<number> {
  return {
    schema: z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/)
      .transform(Number)
      .pipe(z.number().max(1)),
    accepts: 'a number from 0 to 1',
  };
}

export function text(): Kind<string> {
  return { schema: z.string().trim(), accepts: 'any text' };
}

const TRUE = ['true', '1', 'on', 'yes'];
const FALSE = ['false', '0', 'off', 'no'];

export function flag(): Kind<boolean> {
  return {
    schema: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum([...TRUE, ...FALSE]))
      .transform((value) => TRUE.includes(value)),
    accepts: `true or false: ${TRUE.join(', ')} for true; ${FALSE.join(', ')} for false`,
  };
}

/** One of a fixed list, case-insensitive. */
export function oneOf<const T extends string>(values: readonly [T, ...T[]], accepts = `one of ${values.join(', ')}`): Kind<T> {
  return { schema: z.string().trim().toLowerCase().pipe(z.enum(values)), accepts };
}

/** An absolute http(s) URL, as given. */
export function httpUrl(): Kind<string> {
  return {
    schema: z
      .string()
      .trim()
      .pipe(z.url({ protocol: /^https?$/ })),
    accepts: 'an absolute http(s) URL',
  };
}

/** The REST base URL: http(s), no query, fragment, credentials or `/api` (the gateway adds it); no trailing `/`. */
export function upstreamUrl(): Kind<string> {
  return {
    accepts: 'an absolute http(s) URL without query, fragment, credentials or trailing `/api`',
    schema: z.string().transform((raw, ctx) => {
      const url = urlOrUndefined(raw.trim());
      if (!url) return refuse(ctx, `must be an absolute http(s) URL (got "${raw}").`);
      if (!['http:', 'https:'].includes(url.protocol)) {
        return refuse(ctx, `must be an http(s) URL: its scheme, ${url.protocol}, is not supported (use http:// or https://).`);
      }
      if (url.search || url.hash || url.username || url.password) {
        return refuse(ctx, 'must be an http(s) URL without query, fragment or credentials.');
      }
      if (/\/api\/?$/.test(url.pathname)) return refuse(ctx, 'is the base URL without `/api` (the gateway adds it).');
      return url.href.replace(/\/$/, '');
    }),
  };
}

function urlOrUndefined(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** `*`, or comma-separated origins such as `https://app.example.com` (scheme, host, optional port). */
export function corsOrigins(): Kind<'*' | string[]> {
  return {
    accepts: '* or comma-separated origins like https://app.example.com',
    schema: z.string().transform((raw, ctx) => {
      const trimmed = raw.trim();
      if (trimmed === '*') return '*' as const;
      const origins: string[] = [];
      for (const entry of trimmed.split(',')) {
        const origin = entry.trim();
        const url = urlOrUndefined(origin);
        if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== origin.replace(/\/$/, '')) {
          return refuse(ctx, `must be * or comma-separated origins like https://app.example.com (got "${origin}").`);
        }
        origins.push(url.origin);
      }
      return origins;
    }),
  };
}

/** `memory`, a Redis URL or a Redis Cluster; never echoed in an error: it may hold a password. */
export function cacheStore(): Kind<string> {
  return {
    secret: true,
    accepts:
      '`memory`, a Redis URL like redis://host:6379/0 (rediss:// for TLS), or a Redis Cluster like redis-cluster://host:6379,host2:6379',
    schema: z
      .string()
      .trim()
      .refine((store) => store === 'memory' || isRedisUrl(store) || redisClusterTarget(store) !== undefined, {
        error:
          ' must be `memory`, a Redis URL like redis://host:6379/0 (rediss:// for TLS), or a Redis Cluster like redis-cluster://host:6379,host2:6379.',
      }),
  };
}

/** A secret of at least `minLength` characters, never echoed. */
export function secret(minLength: number): Kind<string> {
  return {
    secret: true,
    accepts: `a secret of at least ${minLength} characters`,
    schema: z.string().min(minLength, { error: ` must be at least ${minLength} characters long.` }),
  };
}

/** `480/minute,4800/hour`: upstream calls per key and window. */
export function upstreamBudget(): Kind<BudgetWindow[]> {
  return { schema: parsedBy(parseUpstreamBudget), accepts: 'limits per window like 480/minute,4800/hour', secret: true };
}

/** A persisted-operations manifest file, read at start. */
export function manifestFile(): Kind<OperationManifest> {
  return { schema: parsedBy(readOperationManifest), accepts: 'the path of a manifest file', secret: true };
}

/** An HTTP header name (RFC 9110 token), lower case. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** `name=value,name=value`, values percent-encoded (the OTLP exporter's format). The values are secrets: no error repeats them. */
export function otlpHeaders(): Kind<Record<string, string>> {
  return {
    secret: true,
    accepts: 'name=value pairs separated by commas, values percent-encoded',
    schema: z.string().transform((raw, ctx) => {
      const headers: Record<string, string> = {};
      for (const pair of raw.split(',')) {
        if (!pair.trim()) continue;
        const at = pair.indexOf('=');
        // Without an `=` the whole entry may be the secret: only a header name is ever named in an error.
        const header = at > 0 ? pair.slice(0, at).trim().toLowerCase() : '';
        let value: string | undefined;
        try {
          value = decodeURIComponent(pair.slice(at + 1).trim());
        } catch {
          value = undefined;
        }
        if (!HEADER_NAME.test(header) || value === undefined) {
          const entry = HEADER_NAME.test(header) ? `the value of ${header}` : 'an entry without a valid name';
          return refuse(ctx, `must be name=value pairs separated by commas, values percent-encoded (${entry} is not).`);
        }
        headers[header] = value;
      }
      return headers;
    }),
  };
}
