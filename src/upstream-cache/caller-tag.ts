// A caller's key as the store knows it: an HMAC-SHA256 of the key under the store's secret, cut to
// 128 bits. Neither the key nor a plain digest of it (which anyone could compute from a guessed
// key) is ever stored, logged or measured.
import { createHmac } from 'node:crypto';

export function callerTag(secret: string, key: string): string {
  return createHmac('sha256', secret).update(key).digest().subarray(0, 16).toString('base64url');
}
