// node:http plumbing: reading a request body, decoding it, writing JSON replies.
import type { IncomingMessage, ServerResponse } from 'node:http';

export async function readRawBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export type DecodedBody = { ok: true; value: unknown } | { ok: false; message: string };

/** An empty body is DRF's empty `request.data`: `{}`. */
export function decodeJsonBody(raw: string): DecodedBody {
  if (raw.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw) as unknown };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** What `requests` records: parsed JSON, else the raw text, else undefined. */
export function recordableBody(raw: string): unknown {
  if (raw === '') return undefined;
  const decoded = decodeJsonBody(raw);
  return decoded.ok ? decoded.value : raw;
}

/** Node gives lower-cased header names; repeated headers are joined as HTTP allows. */
export function flattenHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** An answer ready for the wire: what the fault injection (faults.ts) cuts, delays or replaces. */
export interface EncodedAnswer {
  status: number;
  headers: Record<string, string>;
  /** The JSON text (empty for 204 or no body); a HEAD answer keeps it to state its length but sends none. */
  body: Buffer;
  head: boolean;
}

export function encodeJson(status: number, body: unknown, headers: Record<string, string> = {}, head = false): EncodedAnswer {
  if (status === 204 || body === undefined) return { status, headers, body: Buffer.alloc(0), head: true };
  const text = Buffer.from(JSON.stringify(body));
  return { status, headers: { ...headers, 'content-type': 'application/json', 'content-length': String(text.length) }, body: text, head };
}

export function sendEncoded(res: ServerResponse, answer: EncodedAnswer): void {
  if (res.destroyed) return; // the client hung up while the answer waited (a delay)
  res.writeHead(answer.status, answer.headers);
  res.end(answer.head ? undefined : answer.body);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, head = false): void {
  sendEncoded(res, encodeJson(status, body, headers, head));
}
