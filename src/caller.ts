// Who is calling: the bearer key of a request, and the tag that stands for it wherever the gateway
// keeps something per caller (the store, the budget, idempotency records, subscription polls,
// admission's queues). A tag is an HMAC-SHA256 of the key, cut to 128 bits: neither the key nor a
// plain digest of it (which anyone could compute from a guessed key) is ever stored, logged or
// measured.
import { createHmac } from 'node:crypto';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The key of an `Authorization: Bearer <key>` header, or null without one. */
function bearerKey(authorization: string | null): string | null {
  return authorization ? (BEARER.exec(authorization)?.[1] ?? null) : null;
}

/** The request's bearer key, or null without one. */
export const callerKey = (request: Request): string | null => bearerKey(request.headers.get('authorization'));

export function callerTag(secret: string, key: string): string {
  return createHmac('sha256', secret).update(key).digest().subarray(0, 16).toString('base64url');
}
