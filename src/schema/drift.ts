// Drift (contract: The real service): every record an upstream answer carries is compared whole
// with what the schema reads, whatever the operation selected. A REST field no GraphQL field reads
// is `unknown`; a field the schema reads that the record lacks is `missing`. The schema is the one
// source: a GraphQL field reads the REST field whose camelCase is its name (contract: Naming).
import { type GraphQLSchema, getNamedType, isObjectType } from 'graphql';

export interface Drift {
  /** The GraphQL type, e.g. `Domain`. */
  type: string;
  /** The REST field, e.g. `scim_base_url`. */
  field: string;
  kind: 'unknown' | 'missing';
}

/** GraphQL fields whose REST name the camelCase rule cannot be turned back into. */
const REST_NAME: Record<string, string> = { databaseId: 'id', enforce2fa: 'enforce_2fa', is2faEnabled: 'is_2fa_enabled' };
const restNameOf = (field: string) => REST_NAME[field] ?? field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** Fields that are not read from the record: extra GETs, and fields no read sends (create and update answers only). */
const NOT_FROM_RECORD = new Set(['checkForUpdates', 'source', 'targetingFlagId', 'targetingFlagFilters', 'removeTargetingFlag']);
/** Embedded objects compared too; other nested values (JSON, `teams`, `projects` items) are not inspected. */
const EMBEDDED = new Set(['User', 'FeatureFlag', 'BatchExportRun', 'BatchExportDestination']);

/** The GraphQL type of the records a REST route answers with: its collection, or one record of it. Actions are not compared. */
const RECORD_ROUTES: [RegExp, string][] = [
  [/^\/api\/organizations\/(:id\/)?$/, 'Organization'],
  [/\/batch_exports\/(:id\/)?$/, 'BatchExport'],
  [/\/domains\/(:id\/)?$/, 'Domain'],
  [/\/invites\/(:id\/)?$/, 'Invite'],
  [/\/members\/(:id\/)?$/, 'Member'],
  [/\/pipeline_destinations\/(:id\/)?$/, 'PipelineDestination'],
  [/\/pipeline_frontend_apps\/(:id\/)?$/, 'PipelineFrontendApp'],
  [/\/pipeline_import_apps\/(:id\/)?$/, 'PipelineImportApp'],
  [/\/surveys\/(:id\/)?$/, 'Survey'],
];

export function recordTypeOfRoute(route: string): string | undefined {
  return RECORD_ROUTES.find(([pattern]) => pattern.test(route))?.[1];
}

/** The records of an answer: a list page's results, or the answer itself. */
export function recordsOf(answer: unknown): unknown[] {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return [];
  const results = (answer as { results?: unknown }).results;
  return Array.isArray(results) ? results : [answer];
}

/** What the schema reads of one REST field: whether its absence counts, and the embedded type to compare inside it. */
interface ReadField {
  deprecated: boolean;
  embedded: string | undefined;
}

/** What the schema reads of one compared type, and the drift of the last key list seen in it. */
interface ReadType {
  /** REST field -> how it is read. */
  fields: Map<string, ReadField>;
  /** The fields holding embedded objects, compared inside every record. */
  embeddedFields: { rest: string; embedded: string }[];
  /** A record's drift depends on its keys alone, and the records of a route are alike: worked out once per key list. */
  lastKeys: string[];
  lastDrift: readonly Drift[];
}

/** What the schema reads of each compared type. Worked out once: every record is compared. */
type ReadFields = Map<string, ReadType>;

export function readFieldsOf(schema: GraphQLSchema): ReadFields {
  const types: ReadFields = new Map();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const fields = new Map<string, ReadField>();
    for (const field of Object.values(type.getFields())) {
      // Connections and lookups take arguments; `id` is the global id, not a REST field.
      if (field.args.length > 0 || field.name === 'id' || NOT_FROM_RECORD.has(field.name)) continue;
      if (type.name === 'Organization' && field.name.startsWith('pipeline')) continue;
      const named = getNamedType(field.type).name;
      fields.set(restNameOf(field.name), {
        deprecated: Boolean(field.deprecationReason),
        embedded: EMBEDDED.has(named) ? named : undefined,
      });
    }
    const embeddedFields = [...fields].flatMap(([rest, { embedded }]) => (embedded ? [{ rest, embedded }] : []));
    types.set(type.name, { fields, embeddedFields, lastKeys: [], lastDrift: driftOfKeys(type.name, fields, []) });
  }
  return types;
}

/** Every difference between one record of `type` and what the schema reads, embedded objects included. */
export function driftOf(read: ReadFields, type: string, record: unknown, found: Drift[] = []): Drift[] {
  const readType = read.get(type);
  if (!readType || typeof record !== 'object' || record === null) return found;
  const values = record as Record<string, unknown>;
  if (!hasKeys(values, readType.lastKeys)) {
    readType.lastKeys = Object.keys(values);
    readType.lastDrift = driftOfKeys(type, readType.fields, readType.lastKeys);
  }
  found.push(...readType.lastDrift);
  for (const { rest, embedded } of readType.embeddedFields) {
    if (!Object.hasOwn(values, rest)) continue;
    const value = values[rest];
    if (Array.isArray(value)) for (const item of value) driftOf(read, embedded, item, found);
    else driftOf(read, embedded, value, found);
  }
  return found;
}

/** The drift of a record with these keys: those the schema does not read, and those it reads that are absent. */
function driftOfKeys(type: string, fields: Map<string, ReadField>, keys: string[]): readonly Drift[] {
  const drift: Drift[] = [];
  for (const key of keys) if (!fields.has(key) && !key.startsWith('$')) drift.push({ type, field: key, kind: 'unknown' });
  const present = new Set(keys);
  for (const [rest, { deprecated }] of fields) if (!deprecated && !present.has(rest)) drift.push({ type, field: rest, kind: 'missing' });
  return Object.freeze(drift.map((each) => Object.freeze(each)));
}

/** Whether `values` has exactly these keys, in this order (read without making a list of them). */
function hasKeys(values: Record<string, unknown>, keys: string[]): boolean {
  let i = 0;
  for (const key in values) if (key !== keys[i++]) return false;
  return i === keys.length;
}
