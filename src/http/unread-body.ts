// A response sent before its request's body was read whole (413, a refusal under overload, 404,
// 415, a CSRF refusal...) closes the connection. Left open, the unread rest of the body would sit
// in front of the next request on the connection: a pooled client (Node's agent, fetch, a proxy)
// sends it there, possibly another user's request or a write, and gets ECONNRESET, "may have been
// sent". Closing costs a refused caller one new connection and nobody else anything.
import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';

export function closeAfterUnreadBody(): Plugin<object, { req?: IncomingMessage }> {
  return {
    onResponse({ serverContext, response }) {
      // `complete` is false until the whole request, body included, has been parsed. Without a Node
      // request (`yoga.fetch` in tests) there is no connection to keep.
      if (serverContext?.req && !serverContext.req.complete) response.headers.set('connection', 'close');
    },
  };
}
