// Admission control (contract: Limits, overload): a weighted semaphore over the upstream calls in
// flight, with a bounded queue shared between callers by deficit round robin. A request weighs its
// fan-out estimate; it starts at once when its weight fits, waits in its caller's queue when the
// predicted wait fits its time, and is refused at once otherwise. Nothing here knows GraphQL.

interface AdmissionOptions {
  /** Estimated upstream calls in flight at once, over all requests. */
  capacity: number;
  /** Longest predicted wait a request is queued for; one predicted to wait longer is refused at once. */
  maxWaitMs: number;
  /** Requests waiting at once, over all callers: bounds the queue's memory. */
  maxQueued: number;
  /** Told of every admission and refusal (metrics). */
  observer?: AdmissionObserver;
}

export type RefusalReason = 'queue_full' | 'wait_too_long' | 'deadline';

export interface Refusal {
  refused: RefusalReason;
  /** When to come back, in whole seconds: one to two times the wait predicted for the caller's queue (at least 1). */
  retryAfterSeconds: number;
}

export interface Grant {
  refused?: undefined;
  /** Gives the weight back; call it once, when the request's execution has ended. */
  release(): void;
}

interface AdmissionObserver {
  admitted(waitedMs: number): void;
  refused(reason: RefusalReason): void;
}

export interface AdmissionState {
  capacity: number;
  inFlight: number;
  queued: number;
  /** Callers with work in flight or waiting. */
  callers: number;
  /** The largest share of the weight in flight held by one caller (0 to 1). */
  topCallerShare: number;
}

export interface Admission {
  /**
   * Asks to run `weight` (clamped to 1..capacity) for `caller` (a hash, never a key) within
   * `remainingMs`: a Grant at once when it fits, a Refusal at once when its predicted wait does not
   * fit, else a promise of either (a Refusal only if its turn has not come when too little of its
   * time is left to run: admitted work is served, not refused after a wait, unless the prediction failed).
   */
  acquire(caller: string, weight: number, remainingMs: number): Grant | Refusal | Promise<Grant | Refusal>;
  /**
   * The refusal `acquire` would give even the lightest request (weight 1) of `caller` now, if any:
   * asked before the request is read, so that refusing under overload costs no parsing. Changes nothing but the counts.
   */
  refusalBeforeReading(caller: string, remainingMs: number): Refusal | undefined;
  state(): AdmissionState;
}

interface Waiter {
  weight: number;
  enqueuedAt: number;
  timer: NodeJS.Timeout;
  settle(outcome: Grant | Refusal): void;
}

interface Bucket {
  caller: string;
  queue: Waiter[];
  /** Weight queued in this bucket. */
  queuedWeight: number;
  /** Weight this caller has in flight. */
  inFlight: number;
  /** Deficit round robin: weight this caller may still start in its current turn. */
  deficit: number;
  credited: boolean;
}

/** Before any request has ended, a request is assumed to hold its weight this long. */
const INITIAL_HOLD_MS = 1000;
/** Weight of the newest hold time in its moving average. */
const HOLD_EWMA_ALPHA = 0.05;
const MAX_RETRY_AFTER_SECONDS = 60;

export function createAdmission(options: AdmissionOptions): Admission {
  const { capacity, maxWaitMs, maxQueued, observer } = options;
  const buckets = new Map<string, Bucket>();
  /** Buckets with a queue, in round-robin order; `cursor` is the one being served. */
  const ring: Bucket[] = [];
  let cursor = 0;
  let inFlight = 0;
  let queued = 0;
  /** Moving average of how long a request holds its weight. Saturated throughput is capacity / holdMs. */
  let holdMs = INITIAL_HOLD_MS;

  const bucketOf = (caller: string): Bucket => {
    let bucket = buckets.get(caller);
    if (!bucket) {
      bucket = { caller, queue: [], queuedWeight: 0, inFlight: 0, deficit: 0, credited: false };
      buckets.set(caller, bucket);
    }
    return bucket;
  };
  /** Stands for a caller with nothing admitted or waiting, in predictions (never stored). */
  const newcomer: Bucket = { caller: '', queue: [], queuedWeight: 0, inFlight: 0, deficit: 0, credited: false };
  const forgetIfIdle = (bucket: Bucket) => {
    if (bucket.inFlight === 0 && bucket.queue.length === 0 && buckets.get(bucket.caller) === bucket) buckets.delete(bucket.caller);
  };

  /**
   * How long a new request of `weight` in `bucket` would wait. Round robin serves each queue in
   * turn, so ahead of it is its own queue and, of every other queue, as much as its own would be.
   */
  const predictedWaitMs = (bucket: Bucket, weight: number): number => {
    const own = bucket.queuedWeight + weight;
    let ahead = own;
    for (const other of ring) if (other !== bucket) ahead += Math.min(other.queuedWeight, own);
    const overflow = inFlight + ahead - capacity;
    return overflow <= 0 ? 0 : (overflow * holdMs) / capacity;
  };
  /** Admitted work must end within the request's deadline: its wait and its own expected run. */
  const fits = (waitMs: number, remainingMs: number) => waitMs <= maxWaitMs && waitMs + holdMs <= remainingMs;
  const refusal = (reason: RefusalReason, waitMs: number): Refusal => {
    observer?.refused(reason);
    // Spread over one to two times the predicted wait: callers refused together must not all come
    // back together (a herd every few seconds, and an idle queue between herds).
    const seconds = Math.max(1, Math.ceil(waitMs / 1000));
    return { refused: reason, retryAfterSeconds: Math.min(MAX_RETRY_AFTER_SECONDS, seconds + Math.floor(Math.random() * (seconds + 1))) };
  };

  const grant = (bucket: Bucket, weight: number, waitedMs: number): Grant => {
    inFlight += weight;
    bucket.inFlight += weight;
    observer?.admitted(waitedMs);
    const startedAt = performance.now();
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        inFlight -= weight;
        bucket.inFlight -= weight;
        holdMs += HOLD_EWMA_ALPHA * (performance.now() - startedAt - holdMs);
        forgetIfIdle(bucket);
        serveQueues();
      },
    };
  };

  const dequeue = (bucket: Bucket, waiter: Waiter, index: number) => {
    bucket.queue.splice(index, 1);
    bucket.queuedWeight -= waiter.weight;
    queued -= 1;
    clearTimeout(waiter.timer);
    if (bucket.queue.length === 0) leaveRing(bucket);
  };
  const leaveRing = (bucket: Bucket) => {
    const index = ring.indexOf(bucket);
    ring.splice(index, 1);
    if (index < cursor) cursor -= 1;
    if (cursor >= ring.length) cursor = 0;
    bucket.deficit = 0;
    bucket.credited = false;
    forgetIfIdle(bucket);
  };

  /** Deficit round robin: each turn credits a queue `capacity`, enough for any one request. */
  const serveQueues = () => {
    while (ring.length > 0) {
      const bucket = ring[cursor] as Bucket;
      if (!bucket.credited) {
        bucket.deficit += capacity;
        bucket.credited = true;
      }
      const head = bucket.queue[0] as Waiter;
      if (head.weight > bucket.deficit) {
        bucket.credited = false;
        cursor = (cursor + 1) % ring.length;
        continue;
      }
      // The head waits for weight to come back; it keeps its turn.
      if (inFlight + head.weight > capacity) return;
      bucket.deficit -= head.weight;
      // Granted before it leaves the queue, so that its caller's bucket is not forgotten in between.
      const granted = grant(bucket, head.weight, performance.now() - head.enqueuedAt);
      dequeue(bucket, head, 0);
      head.settle(granted);
    }
  };

  /** The queue is full: the longest other queue gives up its newest request, so no caller can fill it alone. */
  const makeRoom = (bucket: Bucket): boolean => {
    let longest: Bucket | undefined;
    for (const other of ring) if (!longest || other.queue.length > longest.queue.length) longest = other;
    if (!longest || longest.queue.length <= bucket.queue.length + 1) return false;
    const last = longest.queue.length - 1;
    const evicted = longest.queue[last] as Waiter;
    dequeue(longest, evicted, last);
    evicted.settle(refusal('queue_full', predictedWaitMs(longest, 0)));
    return true;
  };

  return {
    acquire(caller, requested, remainingMs) {
      const weight = Math.min(capacity, Math.max(1, Math.ceil(requested)));
      const bucket = bucketOf(caller);
      if (queued === 0 && inFlight + weight <= capacity) return grant(bucket, weight, 0);
      const waitMs = predictedWaitMs(bucket, weight);
      if (!fits(waitMs, remainingMs)) {
        forgetIfIdle(bucket);
        return refusal('wait_too_long', waitMs);
      }
      if (queued >= maxQueued && !makeRoom(bucket)) {
        forgetIfIdle(bucket);
        return refusal('queue_full', waitMs);
      }
      return new Promise<Grant | Refusal>((settle) => {
        const waiter: Waiter = {
          weight,
          enqueuedAt: performance.now(),
          settle,
          timer: setTimeout(
            () => {
              const index = bucket.queue.indexOf(waiter);
              if (index < 0) return;
              dequeue(bucket, waiter, index);
              settle(refusal('deadline', predictedWaitMs(bucket, weight)));
              // The head may have been the one blocking the others' turn.
              serveQueues();
            },
            // Started later, it would most likely be cut by its deadline: refused, it makes no call.
            Math.max(0, remainingMs - holdMs),
          ),
        };
        if (bucket.queue.length === 0) ring.push(bucket);
        bucket.queue.push(waiter);
        bucket.queuedWeight += weight;
        queued += 1;
        serveQueues();
      });
    },
    refusalBeforeReading(caller, remainingMs) {
      if (queued === 0) return undefined;
      const bucket = buckets.get(caller);
      const waitMs = bucket ? predictedWaitMs(bucket, 1) : predictedWaitMs(newcomer, 1);
      return fits(waitMs, remainingMs) ? undefined : refusal('wait_too_long', waitMs);
    },
    state() {
      let top = 0;
      for (const bucket of buckets.values()) top = Math.max(top, bucket.inFlight);
      return { capacity, inFlight, queued, callers: buckets.size, topCallerShare: inFlight > 0 ? top / inFlight : 0 };
    },
  };
}
