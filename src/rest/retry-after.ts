// When the upstream says it can be asked again, in whole seconds.

/** `Retry-After` is either delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(header: string | string[] | undefined, now: number = Date.now()): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** The live service's throttle detail, e.g. "Request was throttled. Expected available in 12 seconds." */
export function retryAfterFromDetail(detail: string | undefined): number | undefined {
  const match = detail?.match(/available in (\d+(?:\.\d+)?) seconds?/i);
  return match?.[1] === undefined ? undefined : Math.ceil(Number(match[1]));
}
