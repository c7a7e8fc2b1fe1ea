// Which failed GETs are worth sending again, and after how long.
import type { UpstreamError } from '../upstream-error.ts';

const RETRYABLE_STATUSES = new Set([502, 503, 504]);

/** A connection that was refused or dropped before a full answer: the GET can safely go again. */
const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
]);

export function isRetryable(error: UpstreamError): boolean {
  if (error.kind === 'http') return error.status !== undefined && RETRYABLE_STATUSES.has(error.status);
  if (error.kind === 'network') return error.networkCode !== undefined && RETRYABLE_NETWORK_CODES.has(error.networkCode);
  return false;
}

/**
 * Exponential backoff with equal jitter (half the step fixed, half random), so a retry never goes
 * out at once; longer when the upstream's `Retry-After` asks for more (a past date asks for nothing).
 */
export function retryDelayMs(error: UpstreamError, retryNumber: number, baseDelayMs: number, random: () => number = Math.random): number {
  const step = baseDelayMs * 2 ** (retryNumber - 1);
  const backoff = Math.round(step / 2 + (random() * step) / 2);
  return Math.max(backoff, (error.retryAfterSeconds ?? 0) * 1000);
}
