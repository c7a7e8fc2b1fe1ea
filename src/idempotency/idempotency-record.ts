// What the store holds under an idempotency key, as JSON: the request's fingerprint and where it
// is. `running` until the request ends; then `done` with its whole HTTP response, or `not-kept`
// when that response was larger than IDEMPOTENCY_MAX_RESPONSE_BYTES. A request that sent no write
// leaves no record at all.

export type IdempotencyRecord =
  | {
      state: 'running';
      fingerprint: string;
      /** When (epoch ms) the request must have ended: a record still running after it lost its outcome. */
      endsBy: number;
      /** Random: makes each claim's record its own, so releasing it can never drop another claim's. */
      claim: string;
    }
  | { state: 'done'; fingerprint: string; status: number; contentType: string; body: string }
  | { state: 'not-kept'; fingerprint: string; status: number };

export const encodeRecord = (record: IdempotencyRecord): string => JSON.stringify(record);

export const decodeRecord = (text: string): IdempotencyRecord => JSON.parse(text) as IdempotencyRecord;
