// The Yoga plugins of subscriptions: push only changes, and let no stream outlive a refused answer.
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

/**
 * "Push only when the subscriber's selected data changed": the poll yields the whole record, GraphQL
 * executes each subscriber's own selection on it, and an executed result that is the same, once
 * serialized, as the last one sent to that subscriber is dropped. So a change to a field nobody
 * selected sends nothing, and a subscriber selecting it alone still gets it.
 */
function changesOnlyPlugin(): Plugin {
  return {
    onSubscribe() {
      return {
        onSubscribeResult({ result, setResult }) {
          if (isAsyncIterable(result)) setResult(changesOnly(result));
        },
      };
    },
  };
}

/**
 * The results of `source` that differ from the last one passed on. Not a lazy wrapper (an async
 * generator, a Repeater): `return()` reaches the source at once, even before the first `next()` or
 * while one waits, so the subscriber leaves its poll as soon as the client goes.
 */
function changesOnly(source: AsyncIterable<ExecutionResult>): AsyncIterableIterator<ExecutionResult> {
  const iterator = source[Symbol.asyncIterator]();
  let lastSent: string | undefined;
  return {
    async next() {
      for (;;) {
        const step = await iterator.next();
        if (step.done) return step;
        const serialized = JSON.stringify(step.value);
        if (serialized !== lastSent) {
          lastSent = serialized;
          return step;
        }
      }
    },
    return: async () => (await iterator.return?.()) ?? { done: true, value: undefined },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * A subscription asked for without `Accept: text/event-stream` is answered 406 by Yoga, after its
 * stream was opened; Yoga then drops the stream without ending it, which would keep its poll and
 * its place in the limits for ever. It is ended here.
 */
function endUnservedStreamsPlugin(): Plugin {
  return {
    onResultProcess({ result, resultProcessor }) {
      if (!resultProcessor && isAsyncIterable(result)) void result[Symbol.asyncIterator]().return?.();
    },
  };
}

export function subscriptionPlugins(): Plugin[] {
  return [changesOnlyPlugin(), endUnservedStreamsPlugin()];
}
