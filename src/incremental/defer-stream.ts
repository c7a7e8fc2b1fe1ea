// @defer and @stream (contract: Incremental delivery): graphql-yoga's defer-stream plugin adds the
// directives and their validation rules; an operation using them runs on Yoga's own (graphql-js)
// execution, which delivers them, while every other operation keeps graphql-jit's compiled one
// (which ignores both). In a batch they are ignored: the operation runs compiled, and its slot holds
// the whole result (src/incremental/batching.ts).
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { type DocumentNode, type ExecutionResult, type GraphQLError, Kind, visit } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

const INCREMENTAL_DIRECTIVES = new Set(['defer', 'stream']);

/** Whether a document uses @defer or @stream anywhere; walked once per document (Yoga's parse cache hands the same one). */
const incrementalDocuments = new WeakMap<DocumentNode, boolean>();
export function usesIncrementalDelivery(document: DocumentNode): boolean {
  let uses = incrementalDocuments.get(document);
  if (uses === undefined) {
    uses = false;
    visit(document, {
      [Kind.DIRECTIVE](node) {
        if (INCREMENTAL_DIRECTIVES.has(node.name.value)) uses = true;
      },
    });
    incrementalDocuments.set(document, uses);
  }
  return uses;
}

/** Media types an incremental answer can be sent as: multipart/mixed and GraphQL over SSE (also a wildcard, or no Accept). */
const INCREMENTAL_MEDIA_TYPES = /multipart\/mixed|text\/event-stream|\*\/\*|multipart\/\*|text\/\*/i;

/**
 * An incremental operation asked for with JSON types only is refused with 406 before it runs (Yoga
 * answers 406 to a stream no result processor takes: an empty one is given, so no upstream call is
 * made for an answer that cannot be sent).
 */
function refuseJsonOnly(inBatch: (request: Request) => boolean): Plugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      if (!usesIncrementalDelivery(args.document)) return;
      const { request } = args.contextValue as { request: Request };
      if (inBatch(request)) return;
      const accept = request.headers.get('accept');
      if (!accept || INCREMENTAL_MEDIA_TYPES.test(accept)) return;
      setResultAndStopExecution(noPayloads() as unknown as ExecutionResult);
    },
  };
}

async function* noPayloads() {}

interface IncrementalEntry {
  errors?: readonly GraphQLError[];
}

/**
 * Yoga masks the errors of a result and of each payload's `errors`, not those of `incremental[]`
 * (a deferred fragment's own): they leave through the gateway's masking too, with its codes.
 */
function maskIncrementalErrors(maskError: (error: unknown) => Error): Plugin {
  const masked = (entry: IncrementalEntry) => (entry.errors ? { ...entry, errors: entry.errors.map((error) => maskError(error)) } : entry);
  return {
    onExecute({ args }) {
      if (!usesIncrementalDelivery(args.document)) return; // nothing made for any other request
      return {
        onExecuteDone({ result }) {
          if (!isAsyncIterable(result)) return;
          return {
            onNext({ result: payload, setResult }) {
              const { incremental } = payload as { incremental?: IncrementalEntry[] };
              if (incremental) setResult({ ...payload, incremental: incremental.map(masked) } as unknown as ExecutionResult);
            },
          };
        },
      };
    },
  };
}

/** `inBatch`: whether a request is a batch, whose operations ignore both directives; `maskError`: how every error leaves. */
export function deferStreamPlugins(inBatch: (request: Request) => boolean, maskError: (error: unknown) => Error): Plugin[] {
  return [useDeferStream(), refuseJsonOnly(inBatch), maskIncrementalErrors(maskError)];
}
