// Several mutations in one operation run one after another, and a bad one stops them as a whole. A
// malformed global id (or one of the wrong type) in any of their inputs is BAD_USER_INPUT before the
// first runs, with no upstream call (globalIdInput, src/schema/argument-checks.ts). Here: once one
// fails with a GraphQL error, those after it do not run, as graphql-js's serial execution stops
// (graphql-jit would run them).

/** Operations one of whose mutations failed with a GraphQL error, by context. */
const stopped = new WeakSet<object>();

/**
 * Every mutation's resolver, first: throws when an earlier mutation of the operation failed. The
 * answer does not show it: that failure already made `data` null (every mutation field is non-null),
 * and graphql-jit keeps only the first error that reaches `data`, as graphql-js would have stopped.
 */
export function refuseAfterFailure(context: object): void {
  if (stopped.has(context)) throw new Error('An earlier mutation of this operation failed.');
}

/** A mutation failed with a GraphQL error (not an error as data): the operation's later mutations do not run. */
export function stopAfterFailure(context: object): void {
  stopped.add(context);
}
