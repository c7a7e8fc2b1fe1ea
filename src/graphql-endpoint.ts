// Where GraphQL is served (the contract's `/graphql`): Yoga's endpoint, and the only path the
// request log summarises and the tracing gives a request span. Imports nothing.

export const GRAPHQL_ENDPOINT = '/graphql';
