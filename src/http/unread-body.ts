// A response sent before its request's body was read whole (413, a refusal under overload, 404,
// 415, a CSRF refusal...) must not leave the rest of the body in front of the next request on the
// connection: a pooled client (Node's agent, fetch, a proxy) sends that request there, possibly
// another user's or a write, and gets ECONNRESET, "may have been sent". Node itself reads and drops
// a body nobody touched once the answer is sent; a small one is left to it, so a client refused
// under overload keeps its connection (a reconnect per refusal is what floods a listen backlog).
// Any other (partly read, chunked, or large) closes the connection: it costs that caller one new
// connection and nobody else anything.
import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';

/** A body up to this size, untouched, is read and dropped by Node after the answer (not a setting: a few TCP segments). */
const DROPPED_BODY_BYTES = 64 * 1024;

export function closeAfterUnreadBody(): Plugin<object, { req?: IncomingMessage }> {
  return {
    onResponse({ serverContext, response }) {
      // `complete` is false until the whole request, body included, has been parsed. Without a Node
      // request (`yoga.fetch` in tests) there is no connection to keep.
      const req = serverContext?.req;
      if (req && !req.complete && !leftToNode(req)) response.headers.set('connection', 'close');
    },
  };
}

function leftToNode(req: IncomingMessage): boolean {
  const length = Number(req.headers['content-length']);
  return !req.readableDidRead && req.headers['transfer-encoding'] === undefined && length <= DROPPED_BODY_BYTES;
}
