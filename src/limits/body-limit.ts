// Refuses request bodies over the limit with 413: by Content-Length before anything is read, and
// for a chunked body (no Content-Length) by counting bytes as they arrive.
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors/graphql-errors.ts';

const tooLargeMessage = (maxBytes: number) => `The request body is larger than ${maxBytes} bytes.`;
const tooLargeExtensions = (maxBytes: number) => ({ code: 'QUERY_TOO_COMPLEX', limit: 'maxRequestBytes', maxBytes });

async function readLimited(request: Request, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Iterated by hand: leaving a `for await` early would call the iterator's return(), which
  // destroys Node's request stream and with it the socket, so the 413 would never be sent.
  // Node's server discards the rest of the body once the answer is out.
  const iterator = (request.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    size += next.value.byteLength;
    if (size > maxBytes) {
      throw gatewayError('QUERY_TOO_COMPLEX', tooLargeMessage(maxBytes), { ...tooLargeExtensions(maxBytes), http: { status: 413 } });
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function bodyLimitPlugin(maxBytes: number): Plugin {
  return {
    onRequest({ request, fetchAPI, endResponse }) {
      const length = Number(request.headers.get('content-length'));
      if (length > maxBytes) {
        endResponse(
          fetchAPI.Response.json(
            { errors: [{ message: tooLargeMessage(maxBytes), extensions: tooLargeExtensions(maxBytes) }] },
            { status: 413 },
          ),
        );
      }
    },
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      // No parser for its content type: Yoga answers 415 without reading the body.
      if (request.method !== 'POST' || request.headers.has('content-length') || !request.body || !requestParser) return;
      // The parser Yoga picked gets the body read within the limit, so a chunked body is answered
      // as the same body with a Content-Length is (a new Request only for these).
      setRequestParser(async (req) => {
        const body = await readLimited(req, maxBytes);
        return requestParser(new fetchAPI.Request(req.url, { method: req.method, headers: req.headers, body }));
      });
    },
  };
}
