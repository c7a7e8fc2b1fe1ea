// "Push only when the subscriber's selected data changed": the poll yields the whole record, GraphQL
// executes each subscriber's own selection on it, and this plugin drops an executed result that is
// the same, byte for byte once serialized, as the last one sent to that subscriber. So a change to a
// field nobody selected sends nothing, and a subscriber selecting it alone still gets it.
import type { ExecutionResult } from 'graphql';
import { filter, isAsyncIterable, type Plugin } from 'graphql-yoga';

export function changesOnlyPlugin(): Plugin {
  return {
    onSubscribe() {
      return {
        onSubscribeResult({ result, setResult }) {
          if (!isAsyncIterable(result)) return;
          let lastSent: string | undefined;
          setResult(
            filter((next: ExecutionResult) => {
              const serialized = JSON.stringify(next);
              if (serialized === lastSent) return false;
              lastSent = serialized;
              return true;
            })(result),
          );
        },
      };
    },
  };
}
