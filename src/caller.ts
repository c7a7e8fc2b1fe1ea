// Who is calling: the bearer key of a request, and the tag that stands for it wherever the gateway
// keeps something per caller (the store, the budget, idempotency records, subscription polls). A
// tag is an HMAC-SHA256 of the key, cut to 128 bits: neither the key nor a plain digest of it (which
// anyone could compute from a guessed key) is ever stored, logged or measured. Admission's queues,
// held by one process for as long as a request, use the cheaper requestCallerTag.
import { createHmac, hash } from 'node:crypto';

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

/**
 * A tag for what only this process holds, and only while a request lasts (admission's queues):
 * SHA-256 of a secret of the process and the key, cut to 22 characters like callerTag's, in one
 * native call. Not an HMAC, which costs ~5 µs a request (~1% of a dashboard's CPU in a profile):
 * nothing made with it is stored, compared across processes or shown, so there is nothing for a
 * length extension to forge, and the secret still keeps a guessed key from being checked against a
 * tag.
 */
export function requestCallerTag(secret: string, key: string): string {
  return hash('sha256', `${secret}\u0000${key}`, 'base64url').slice(0, 22);
}
