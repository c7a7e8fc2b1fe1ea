// Reads an upstream error response body. The live service sends {type, code, detail, attr};
// plain DRF sends {"detail": "..."}; anything else is ignored rather than echoed. Every string kept
// goes through the call's redactor here, so no raw upstream text leaves this function.

import type { RestErrorBody } from '../wire/rest-types.ts';
import type { UpstreamTextRedactor } from './redact.ts';

interface ParsedErrorBody {
  body?: RestErrorBody;
  detail?: string;
}

export function parseErrorBody(text: string, redact: UpstreamTextRedactor): ParsedErrorBody {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return {};
  const record = json as Record<string, unknown>;
  const detail = typeof record.detail === 'string' ? redact(record.detail) : undefined;
  const attr = record.attr === undefined ? null : record.attr;
  const isFullShape =
    typeof record.type === 'string' &&
    typeof record.code === 'string' &&
    detail !== undefined &&
    (attr === null || typeof attr === 'string');
  if (!isFullShape) return { detail };
  const body: RestErrorBody = {
    type: redact(record.type as string) as RestErrorBody['type'],
    code: redact(record.code as string),
    detail: detail as string,
    attr: attr === null ? null : redact(attr as string),
  };
  return { detail, body };
}
