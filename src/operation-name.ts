// Whether a caller's `operationName` is a GraphQL name: only such a name can name an operation (the
// request log keeps the name asked for only then; the fast path takes only such a request). Imports nothing.

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

export const isOperationName = (name: string): boolean => GRAPHQL_NAME.test(name);
