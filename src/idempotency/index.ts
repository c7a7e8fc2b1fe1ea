// Idempotent mutations (contract: Idempotent mutations). A POST mutation carrying `Idempotency-Key`
// claims the key in the store, under the caller's tag (the cache's keyed hash of the caller's key),
// atomically, before it runs. When it ends, its whole HTTP response is remembered for
// IDEMPOTENCY_TTL_MS if a write may have been sent, else the claim is dropped. A retry with the same
// key and request gets that response again, byte for byte; any other use of the key is refused
// without an upstream call. Without the header this plugin reads one header and does nothing else.
import { createHash, randomBytes } from 'node:crypto';
import { type GraphQLError, getOperationAST } from 'graphql';
import type { Plugin, YogaInitialContext } from 'graphql-yoga';
import { callerKey, callerTag } from '../caller.ts';
import type { IdempotencySettings } from '../config/index.ts';
import type { GatewayContext } from '../context.ts';
import { createMemoryStore } from '../store/memory-store.ts';
import { CallerRecordsFullError, IdempotencyStoreFullError, type SharedStore } from '../store/shared-store.ts';
import { requestFingerprint } from './fingerprint.ts';
import { IDEMPOTENCY_KEY_HEADER, parseIdempotencyKey } from './idempotency-key.ts';

export { IDEMPOTENCY_KEY_HEADER } from './idempotency-key.ts';

import { decodeRecord, encodeRecord, type IdempotencyRecord } from './idempotency-record.ts';
import type { IdempotencyEvents, IdempotencyOutcome } from './metrics.ts';
import { callerRecordsFull, keyReused, malformedKey, outcomeNotKept, stillRunning, storeFull, storeUnavailable } from './refusals.ts';

export { createIdempotencyMetrics } from './metrics.ts';

interface IdempotencyOptions extends IdempotencySettings {
  /** Where records are kept: the shared store when there is one (Redis, or CACHE=memory's). @default this instance's memory, made on first use */
  store?: SharedStore;
  /** The longest a request can run, its writes seen through included: a record still running after it has lost its outcome. */
  maxRequestMs: number;
  events?: IdempotencyEvents;
}

/** A request that claimed its key: what settling it needs. */
interface Claim {
  store: SharedStore;
  tag: string;
  id: string;
  fingerprint: string;
  /** The running record it stored: releasing the key compares against it. */
  record: string;
  context: GatewayContext;
}

export function idempotencyPlugin(options: IdempotencyOptions): Plugin {
  const claims = new WeakMap<Request, Claim>();
  const replays = new WeakMap<Request, Extract<IdempotencyRecord, { state: 'done' }>>();
  let ownStore: SharedStore | undefined;
  const storeOf = (): SharedStore => {
    if (options.store) return options.store;
    ownStore ??= createMemoryStore({ idempotencyMaxEntries: options.maxEntries });
    return ownStore;
  };
  const count = (outcome: IdempotencyOutcome) => options.events?.request(outcome);

  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as GatewayContext & YogaInitialContext;
      const { request } = context;
      const header = request.method === 'POST' ? request.headers.get(IDEMPOTENCY_KEY_HEADER) : null;
      if (header === null || getOperationAST(args.document, args.operationName)?.operation !== 'mutation') return;
      const refuse = (error: GraphQLError, outcome: IdempotencyOutcome) => {
        count(outcome);
        setResultAndStopExecution({ errors: [error] });
      };
      const idempotencyKey = parseIdempotencyKey(header);
      if (idempotencyKey === undefined) return refuse(malformedKey(), 'malformed');
      const key = callerKey(request);
      if (key === null) return; // UNAUTHENTICATED before any write: nothing to remember

      const store = storeOf();
      const unavailable = () => {
        options.events?.storeFailed();
        refuse(storeUnavailable(), 'unavailable');
      };
      // Undefined while a Redis store is unreachable.
      if (store.secret === undefined) return unavailable();
      const fingerprint = requestFingerprint(context.params.query, args.operationName, args.variableValues);
      const running: IdempotencyRecord = {
        state: 'running',
        fingerprint,
        endsBy: Date.now() + options.maxRequestMs,
        claim: randomBytes(12).toString('base64url'),
      };
      // The key itself is the client's; hashed only to bound its length in the store's key.
      const claim: Claim = {
        store,
        tag: callerTag(store.secret, key),
        id: createHash('sha256').update(idempotencyKey).digest('base64url'),
        fingerprint,
        record: encodeRecord(running),
        context,
      };
      let existing: string | null;
      try {
        // Kept while the request can still write, however short IDEMPOTENCY_TTL_MS is: a claim that
        // expired mid-write would let a retry write again.
        const claimMs = Math.max(options.ttlMs, options.maxRequestMs);
        existing = await store.claimIdempotencyKey(claim.tag, claim.id, claim.record, claimMs, options.maxEntriesPerCaller);
      } catch (error) {
        if (error instanceof CallerRecordsFullError) return refuse(callerRecordsFull(options.maxEntriesPerCaller), 'caller_full');
        if (error instanceof IdempotencyStoreFullError) return refuse(storeFull(error.freeInMs), 'unavailable');
        return unavailable();
      }
      if (existing === null) {
        count('claimed');
        context.outliveCaller();
        claims.set(request, claim);
        return;
      }
      const record = decodeRecord(existing);
      if (record.fingerprint !== fingerprint) return refuse(keyReused(), 'key_reused');
      if (record.state === 'running')
        return refuse(Date.now() <= record.endsBy ? stillRunning() : outcomeNotKept('OUTCOME_UNKNOWN'), 'conflict');
      if (record.state === 'not-kept') return refuse(outcomeNotKept('RESPONSE_TOO_LARGE', record.status), 'conflict');
      count('replayed');
      replays.set(request, record);
      setResultAndStopExecution({}); // replaced by the remembered response below
    },

    onResultProcess({ request, setResultProcessor }) {
      const replay = replays.get(request);
      if (!replay) return;
      setResultProcessor(
        (_result, fetchAPI) =>
          new fetchAPI.Response(replay.body, {
            status: replay.status,
            headers: { 'content-type': replay.contentType, 'idempotent-replayed': 'true' },
          }),
        replay.contentType,
      );
    },

    async onResponse({ request, response }) {
      const claim = claims.get(request);
      if (!claim) return;
      claims.delete(request);
      const { store, tag, id, fingerprint } = claim;
      try {
        // Refused before any write (a limit, the budget, a connection never made) or by the upstream's
        // 401/403 (nothing changed): the key is free again, and a made-up key holds no record.
        if (!claim.context.upstreamWriteMayHaveBeenSent()) return await store.releaseIdempotencyKey(tag, id, claim.record);
        const body = await response.clone().text();
        const { status } = response;
        const outcome: IdempotencyRecord =
          Buffer.byteLength(body) <= options.maxResponseBytes
            ? { state: 'done', fingerprint, status, contentType: response.headers.get('content-type') ?? 'application/json', body }
            : { state: 'not-kept', fingerprint, status };
        await store.settleIdempotencyKey(tag, id, encodeRecord(outcome), options.ttlMs);
      } catch {
        // The record stays `running`: a retry is refused (409), and once the request's time is
        // over told that the outcome was lost. Never run twice. (A failed release is retried by
        // the store once it is back.)
        options.events?.storeFailed();
      }
    },
  };
}
