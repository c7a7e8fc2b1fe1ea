// How long the store may take to answer (CACHE_TIMEOUT_MS), timed on its answer rather than on this
// process's own stalls. A plain timer (ioredis' commandTimeout is one) fires as soon as a stalled
// event loop comes back, in the timers phase, before the poll phase reads the reply that may have
// come meanwhile: a healthy store was set aside by the gateway's own 110-226 ms stalls under load.
// So a timer that fires judges only after one more turn of the loop: setImmediate runs in the check
// phase, after the poll phase has read every socket that is ready, and every reply read there has
// settled its promise by then.

/** The store did not answer within CACHE_TIMEOUT_MS. */
class StoreTimeoutError extends Error {
  override readonly name = 'StoreTimeoutError';
  constructor(ms: number) {
    super(`no answer within CACHE_TIMEOUT_MS (${ms} ms)`);
  }
}

/** Settles as `answer` does, or rejects once `ms` passed and a turn of the event loop found no answer either. */
export function withinDeadline<T>(answer: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (!settled) reject(new StoreTimeoutError(ms));
      });
    }, ms);
    answer.then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
