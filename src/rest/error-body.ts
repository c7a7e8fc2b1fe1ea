// Reads an upstream error response body. The live service sends {type, code, detail, attr};
// plain DRF sends {"detail": "..."}; anything else is ignored rather than echoed.
import type { RestErrorBody } from './types.ts';

export interface ParsedErrorBody {
  body?: RestErrorBody;
  detail?: string;
}

export function parseErrorBody(text: string): ParsedErrorBody {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return {};
  const record = json as Record<string, unknown>;
  const detail = typeof record.detail === 'string' ? record.detail : undefined;
  const attr = record.attr === undefined ? null : record.attr;
  const isFullShape =
    typeof record.type === 'string' && typeof record.code === 'string' && detail !== undefined && (attr === null || typeof attr === 'string');
  if (!isFullShape) return { detail };
  return {
    detail,
    body: { type: record.type as RestErrorBody['type'], code: record.code as string, detail: detail as string, attr: attr as string | null },
  };
}

/** Replaces every occurrence of each secret (the key, the upstream origin) so a detail can be shown. */
export function redact(text: string, secrets: readonly string[]): string {
  return secrets.reduce((out, secret) => (secret ? out.split(secret).join('[redacted]') : out), text);
}

export function redactBody(parsed: ParsedErrorBody, secrets: readonly string[]): ParsedErrorBody {
  const detail = parsed.detail === undefined ? undefined : redact(parsed.detail, secrets);
  const body = parsed.body && { ...parsed.body, detail: redact(parsed.body.detail, secrets) };
  return { body, detail };
}
