// The answers to an idempotent mutation that does not run: each a typed GraphQL error with its HTTP
// status (and Retry-After where waiting helps), with no upstream call.
import type { GraphQLError } from 'graphql';
import { gatewayError } from '../errors/graphql-errors.ts';

/** Seconds a caller waits before trying again: the running request's usual length, and how often a lost store is probed. */
const RETRY_AFTER_SECONDS = 1;

const http = (status: number, retry = false) => ({
  http: { status, ...(retry ? { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } } : {}) },
});

export const malformedKey = (): GraphQLError =>
  gatewayError(
    'BAD_USER_INPUT',
    'The Idempotency-Key header must be 1 to 255 visible ASCII characters (no spaces or commas), bare or in double quotes.',
    http(400),
  );

export const keyReused = (): GraphQLError =>
  gatewayError(
    'IDEMPOTENCY_KEY_REUSED',
    'This Idempotency-Key was used with another operation or other variables: use a new key for each distinct mutation.',
    http(422),
  );

export const stillRunning = (): GraphQLError =>
  gatewayError(
    'IDEMPOTENCY_CONFLICT',
    'A request with this Idempotency-Key is still running: retry after it ends to get its response.',
    http(409, true),
  );

/** The first request ended, but its response cannot be replayed: it is refused without running again (no second write). */
export const outcomeNotKept = (reason: 'RESPONSE_TOO_LARGE' | 'OUTCOME_UNKNOWN', status?: number): GraphQLError =>
  gatewayError(
    'IDEMPOTENCY_CONFLICT',
    reason === 'RESPONSE_TOO_LARGE'
      ? `The request with this Idempotency-Key ran (HTTP ${status}), but its response was too large to keep: read the records it changed instead of sending it again.`
      : 'The request with this Idempotency-Key may have made its write, but its outcome was lost (its gateway instance stopped, or the store failed): read the records it may have changed before sending it again with a new key.',
    { reason, ...http(409) },
  );

/** The caller's own share of the store is full: its other keys expire after IDEMPOTENCY_TTL_MS, so no Retry-After. */
export const callerRecordsFull = (maxPerCaller: number): GraphQLError =>
  gatewayError(
    'IDEMPOTENCY_UNAVAILABLE',
    `This caller key has ${maxPerCaller} Idempotency-Keys remembered, the most this gateway keeps for one caller, so this mutation was not run: send it again once older keys have expired, or without the header.`,
    { reason: 'CALLER_LIMIT', ...http(429) },
  );

/** This instance's records are at IDEMPOTENCY_MAX_ENTRIES: room comes when the first expires, and Retry-After says when. */
export const storeFull = (freeInMs: number): GraphQLError => {
  const seconds = Math.max(1, Math.ceil(freeInMs / 1000));
  return gatewayError(
    'IDEMPOTENCY_UNAVAILABLE',
    `This gateway remembers as many Idempotency-Keys as it may, so this mutation was not run: the first is forgotten in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}; retry then, or send it without the header.`,
    { reason: 'STORE_FULL', retryAfter: seconds, http: { status: 503, headers: { 'retry-after': String(seconds) } } },
  );
};

export const storeUnavailable = (): GraphQLError =>
  gatewayError(
    'IDEMPOTENCY_UNAVAILABLE',
    'The store that remembers Idempotency-Keys cannot be reached or is full, so this mutation was not run: retry later.',
    http(503, true),
  );
