// Shared helpers of the reference API specs: one HTTP call, and lookups of the demo data.
import { request } from 'undici';
import type { ReferenceApi } from '../../src/reference-api/index.ts';

interface CallResult<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
}

interface CallOptions {
  /** A key label of `api.keys`, a raw key, or null for no Authorization header. @default 'demo' */
  key?: string | null;
  body?: unknown;
  /** Sent as-is instead of `body` (for malformed JSON). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export async function call<T = any>(api: ReferenceApi, method: string, path: string, options: CallOptions = {}): Promise<CallResult<T>> {
  const label = options.key === undefined ? 'demo' : options.key;
  const headers: Record<string, string> = { ...options.headers };
  if (label !== null) headers.authorization = `Bearer ${api.keys[label] ?? label}`;
  let body: string | undefined = options.rawBody;
  if (body === undefined && options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await request(`${api.url}${path}`, { method: method as 'GET', headers, body });
  const text = await response.body.text();
  return { status: response.statusCode, body: (text ? JSON.parse(text) : undefined) as T, headers: response.headers };
}

/** The demo organizations by name. */
export function demoOrgs(api: ReferenceApi) {
  const byName = (name: string) => {
    const org = [...api.store.organizations.values()].find((o) => o.name === name);
    if (!org) throw new Error(`no demo organization ${name}`);
    return org;
  };
  return { hedgehog: byName('Hedgehog Analytics'), prickly: byName('Prickly Labs'), elsewhere: byName('Elsewhere Inc') };
}

export function userUuid(api: ReferenceApi, id: number): string {
  const user = api.store.users.get(id);
  if (!user) throw new Error(`no user ${id}`);
  return user.uuid;
}
