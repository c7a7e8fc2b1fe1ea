// The Yoga plugins of subscriptions: how they execute, and push only changes. (A stream whose
// answer is refused with 406 is ended by src/errors/protocol-errors.ts.)
import { createSourceEventStream, type ExecutionArgs, type ExecutionResult, type GraphQLError } from 'graphql';
import { isCompiledQuery } from 'graphql-jit';
import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors/graphql-errors.ts';
import type { CompiledOperations } from '../execution/compiled-operations.ts';

/**
 * graphql-js opens the event stream, and graphql-jit executes each event, as it does every query
 * (with the gateway's leaf serializers: an unrepresentable upstream value stays UPSTREAM_ERROR).
 * graphql-jit 0.8's own `subscribe` looks the field up by its name instead of its alias (an aliased
 * subscription failed) and hands it the operation's variables instead of the field's arguments.
 */
function subscriptionExecutionPlugin(operations: CompiledOperations): Plugin {
  const subscribe = async (args: ExecutionArgs) => {
    const query = operations.of(args);
    if (!isCompiledQuery(query)) return query;
    const events = await createSourceEventStream(args);
    if (!isAsyncIterable(events)) return { ...events, errors: events.errors?.map(badVariableCode) };
    return mapAsyncIterator(events, (event) => query.query(event, args.contextValue, args.variableValues));
  };
  return {
    onSubscribe({ setSubscribeFn }) {
      setSubscribeFn(subscribe);
    },
  };
}

/**
 * graphql-js refuses a variable that is missing or does not fit its type without a code; Yoga's own
 * execution gives the same error `BAD_USER_INPUT`, as queries get it. An error of the field's
 * `subscribe` has a path and its code already.
 */
function badVariableCode(error: GraphQLError): GraphQLError {
  if (error.path !== undefined || error.extensions.code !== undefined) return error;
  return gatewayError('BAD_USER_INPUT', error.message, {}, error.nodes);
}

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
 * The results of `source` that differ from the last one passed on, and every RATE_LIMITED one. Not a lazy wrapper (an async
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
        // Each 429 is sent, as the contract says, and the data after it even when unchanged: the
        // subscriber learns the poll recovered. Any other result, a field's error included, only
        // when it changed.
        if (step.value.errors?.some((error) => error.extensions?.code === 'RATE_LIMITED')) {
          lastSent = undefined;
          return step;
        }
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

export function subscriptionPlugins(operations: CompiledOperations): Plugin[] {
  return [subscriptionExecutionPlugin(operations), changesOnlyPlugin()];
}
