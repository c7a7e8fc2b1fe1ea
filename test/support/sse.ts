// A GraphQL-over-SSE client for tests (distinct connections mode): opens a subscription over HTTP,
// collects its `next` events as they arrive and notes `complete`; `close()` drops the connection.
import type { ExecutionResult } from 'graphql';

export interface SseSubscription {
  status: number;
  contentType: string | null;
  /** Every `next` event so far, in order. */
  events: ExecutionResult<Record<string, unknown>>[];
  /** Whether the server sent `complete` (or ended the stream). */
  completed(): boolean;
  /** Resolves once `count` events have arrived; rejects after `timeoutMs`. */
  waitForEvents(count: number, timeoutMs?: number): Promise<ExecutionResult<Record<string, unknown>>[]>;
  /** Resolves once the stream is complete; rejects after `timeoutMs`. */
  waitForComplete(timeoutMs?: number): Promise<void>;
  /** The client goes away (the reader is cancelled). */
  close(): Promise<void>;
}

/**
 * `url`: the gateway's /graphql over HTTP; `query`: the document, or it with the operation to run;
 * `send`: another fetch (e.g. Hive Gateway's in-process one).
 */
export async function subscribe(
  url: string,
  query: string | { query: string; operationName: string },
  variables: Record<string, unknown>,
  key: string | null,
  send: (url: string, init: RequestInit) => Promise<Response> = fetch,
): Promise<SseSubscription> {
  const response = await send(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...(key === null ? {} : { authorization: `Bearer ${key}` }),
    },
    body: JSON.stringify(typeof query === 'string' ? { query, variables } : { ...query, variables }),
  });
  const events: ExecutionResult<Record<string, unknown>>[] = [];
  let complete = false;
  const listeners = new Set<() => void>();
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const reading = (async () => {
    let buffered = '';
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) break;
      buffered += decoder.decode(value, { stream: true });
      let end = buffered.indexOf('\n\n');
      while (end !== -1) {
        const message = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const event = /^event: (\w+)$/m.exec(message)?.[1];
        const data = /^data: ?(.*)$/m.exec(message)?.[1];
        if (event === 'next' && data) events.push(JSON.parse(data));
        if (event === 'complete') complete = true;
        for (const listener of listeners) listener();
        end = buffered.indexOf('\n\n');
      }
    }
    complete = true;
    for (const listener of listeners) listener();
  })();

  const until = (condition: () => boolean, timeoutMs: number, what: string) =>
    new Promise<void>((resolve, reject) => {
      if (condition()) return resolve();
      const check = () => {
        if (!condition()) return;
        clearTimeout(timer);
        listeners.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error(`${what} within ${timeoutMs} ms; events so far: ${JSON.stringify(events)}`));
      }, timeoutMs);
      listeners.add(check);
    });

  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    events,
    completed: () => complete,
    async waitForEvents(count, timeoutMs = 2000) {
      await until(() => events.length >= count, timeoutMs, `no ${count} events`);
      return events;
    },
    waitForComplete: (timeoutMs = 2000) => until(() => complete, timeoutMs, 'no complete'),
    async close() {
      await reader.cancel();
      await reading;
    },
  };
}
