// Text a caller or the upstream can influence is cut before the gateway keeps or shows it.

/** `text` cut to at most `maxLength` UTF-16 units, ending in `…` when cut (never half a surrogate pair). */
export function truncate(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let end = Math.max(0, maxLength - 1);
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…`;
}
