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

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, head = false): void {
  if (status === 204 || body === undefined) {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(head ? undefined : text);
}
