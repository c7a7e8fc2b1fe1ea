// Timestamps as the live service writes and reads them (Django REST framework's DateTimeField).

/** `2026-01-05T10:00:00.000000Z`: UTC with microseconds, the live service's output style. */
export function formatTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 23)}000Z`;
}

// Django's parse_datetime: a date, a time (seconds and fraction optional) and an optional offset.
const ISO_DATETIME =
  /^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,6})\d{0,6})?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** Parses an ISO-8601 date-time; a value without an offset is UTC (the live service's time zone). */
export function parseTimestamp(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const match = ISO_DATETIME.exec(value.trim());
  if (!match) return null;
  const [, year, month, day, hour, minute, second = '0', fraction = '0', zone = 'Z'] = match;
  const parts = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  const [y, mo, d, h, mi, s] = parts;
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return null;
  const ms = Math.floor(Number(`0.${fraction}`) * 1000);
  const utc = Date.UTC(y, mo - 1, d, h, mi, s, ms);
  const check = new Date(utc);
  if (check.getUTCDate() !== d || check.getUTCMonth() !== mo - 1) return null; // e.g. 31 February
  let offsetMinutes = 0;
  if (zone !== 'Z') {
    const digits = zone.replace(':', '');
    const sign = digits.startsWith('-') ? -1 : 1;
    offsetMinutes = sign * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5) || '0'));
  }
  return new Date(utc - offsetMinutes * 60_000);
}

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;

/** `iso` moved by `hours`, in the output format (the demo data's fixed timestamps are built with it). */
export function shiftTimestamp(iso: string, hours = 0): string {
  return formatTimestamp(new Date(Date.parse(iso) + hours * HOUR_MS));
}
