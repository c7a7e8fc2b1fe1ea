// Reads a persisted-operations manifest: operation id (a hash) -> GraphQL document. Two formats:
// graphql-codegen's `persisted-documents.json` (`{ "sha256:<hex>": "query …" }`) and Apollo's
// `{ "format": "apollo-persisted-query-manifest", "operations": [{ "id", "body" }] }`.
import { readFileSync } from 'node:fs';
import { parse } from 'graphql';

/** Documents by id, ids without their `sha256:` prefix (clients send it either way). */
export type OperationManifest = ReadonlyMap<string, string>;

/** The id as the manifest stores it: a `sha256:` prefix is optional on both sides. */
export function manifestId(id: string): string {
  return id.startsWith('sha256:') ? id.slice('sha256:'.length) : id;
}

/** Throws an Error whose message says what is wrong with the file. */
export function readOperationManifest(file: string): OperationManifest {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the file (${(error as Error).message}).`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON (${(error as Error).message}).`);
  }
  const entries = manifestEntries(json);
  if (!entries) {
    throw new Error(
      `${file} must map operation ids to GraphQL documents, like codegen's persisted-documents.json ({ "sha256:<hash>": "query …" }).`,
    );
  }
  if (entries.length === 0) throw new Error(`${file} lists no operations.`);
  const operations = new Map<string, string>();
  for (const [id, document] of entries) {
    try {
      parse(document);
    } catch (error) {
      throw new Error(`operation ${id} in ${file} is not a GraphQL document (${(error as Error).message}).`);
    }
    operations.set(manifestId(id), document);
  }
  return operations;
}

function manifestEntries(json: unknown): [string, string][] | undefined {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return undefined;
  const record = json as Record<string, unknown>;
  if (record.format === 'apollo-persisted-query-manifest') {
    if (!Array.isArray(record.operations)) return undefined;
    const operations = record.operations as { id?: unknown; body?: unknown }[];
    if (!operations.every((o) => typeof o?.id === 'string' && typeof o.body === 'string')) return undefined;
    return operations.map((o) => [o.id as string, o.body as string]);
  }
  const entries = Object.entries(record);
  return entries.every((entry): entry is [string, string] => typeof entry[1] === 'string') ? entries : undefined;
}
