// MAX_RESPONSE_BYTES: no GraphQL answer body (nor one payload of a stream) is larger. Bounded where
// the answer is serialized, once, by the result's own `stringify` (Yoga's result processors call it): an answer past the bound is replaced by a QUERY_TOO_COMPLEX error naming the
// limit, never sent in part, and nothing is serialized twice.
import type { ExecutionResult } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

type Stringify = (result: unknown) => string;
type Serializable = ExecutionResult & { stringify?: Stringify; hasNext?: boolean };

/** The stringifiers made here, so that a result is never bounded twice. */
const bounded = new WeakSet<Stringify>();

/** `stringify`, with an answer over `maxBytes` replaced by the error saying so. */
export function boundedStringify(maxBytes: number, stringify: Stringify = JSON.stringify): Stringify {
  if (bounded.has(stringify)) return stringify;
  const within: Stringify = (result) => {
    const text = stringify(result);
    // A character is 1 to 3 UTF-8 bytes (4 for a surrogate pair's 2): only a text near the bound is measured.
    if (text.length * 3 <= maxBytes || (text.length <= maxBytes && Buffer.byteLength(text) <= maxBytes)) return text;
    return JSON.stringify(tooLarge(maxBytes, (result as Serializable | null)?.hasNext));
  };
  bounded.add(within);
  return within;
}

function tooLarge(maxBytes: number, hasNext: boolean | undefined) {
  return {
    errors: [
      {
        message: `The answer is larger than ${maxBytes} bytes, the most this gateway sends: ask for fewer fields, smaller pages or fewer records.`,
        extensions: { code: 'QUERY_TOO_COMPLEX', limit: 'maxResponseBytes', maxBytes },
      },
    ],
    // A payload of a stream keeps its place in it.
    ...(hasNext === undefined ? {} : { hasNext }),
  };
}

/**
 * Bounds every result Yoga serializes: an execution's, each payload of an incremental one, each
 * event of a subscription. A compiled operation's results carry its stringifier, bounded once when
 * it was compiled (src/execution/compiled-operations.ts); the others get JSON.stringify's, bounded here.
 */
export function responseSizePlugin(maxBytes: number): Plugin {
  const plain = boundedStringify(maxBytes);
  const bound = (result: Serializable) => {
    result.stringify = result.stringify ? boundedStringify(maxBytes, result.stringify) : plain;
  };
  // Each payload of a stream as it is made; a whole result once every plugin has had it, as it is processed.
  const eachPayload = ({ result }: { result: unknown }) =>
    isAsyncIterable(result) ? { onNext: ({ result: payload }: { result: unknown }) => bound(payload as Serializable) } : undefined;
  return {
    onExecute: () => ({ onExecuteDone: eachPayload }),
    onSubscribe: () => ({ onSubscribeResult: eachPayload }),
    onResultProcess({ result }) {
      if (!isAsyncIterable(result) && !Array.isArray(result)) bound(result as Serializable);
    },
  };
}
