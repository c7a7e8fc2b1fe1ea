// What a request under an idempotency key asks for: the operation's text (a persisted operation's
// is filled in by then, so its id and its text agree), the operation name and the variables, with
// the keys of every object sorted so that their order does not matter. SHA-256, hex. JSON.stringify
// recurses: the variables' depth is bounded before (MAX_JSON_DEPTH, src/limits/json-depth.ts).
import { createHash } from 'node:crypto';

export function requestFingerprint(query: string | undefined, operationName: string | null | undefined, variables: unknown): string {
  const canonical = JSON.stringify([query ?? '', operationName ?? null, variables ?? {}], sortedKeys);
  return createHash('sha256').update(canonical).digest('hex');
}

/** A JSON.stringify replacer: each object is written with its keys in order. */
function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  // No prototype: a `__proto__` key is then a key like any other, not a prototype left out.
  const sorted: Record<string, unknown> = Object.create(null);
  for (const name of Object.keys(value).sort()) sorted[name] = (value as Record<string, unknown>)[name];
  return sorted;
}
