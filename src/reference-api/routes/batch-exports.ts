// /api/organizations/:organization_id/batch_exports: CRUD plus pause, unpause, backfill (seed 4.2).
import { validationError } from '../api-errors.ts';
import { found, normalizeUuid, requireOrganization } from '../lookup.ts';
import { listReply } from '../pagination.ts';
import { created, noContent, ok, type Route, type RouteContext } from '../router.ts';
import { serializeBatchExport } from '../serializers.ts';
import type { StoredBatchExport } from '../stored-records.ts';
import { type Fields, isPlainObject, type Schema, validateFields } from '../validation.ts';

/** The live service's destination types (the seed shows only `S3`). */
const DESTINATION_TYPES = ['S3', 'Snowflake', 'Postgres', 'Redshift', 'BigQuery', 'Databricks', 'AzureBlob', 'HTTP', 'NoOp'];
/** The live service's intervals (the seed shows only `hour`). */
const INTERVALS = ['hour', 'day', 'week', 'every 5 minutes', 'every 15 minutes'];

/** Writable fields in the live serializer's order, so the first error reported is the live one. */
const EXPORT_FIELDS: Schema = {
  name: { kind: 'string', required: true },
  model: { kind: 'choice', choices: ['events', 'persons'] },
  destination: { kind: 'object', required: true },
  interval: { kind: 'choice', choices: INTERVALS, required: true },
  paused: { kind: 'boolean' },
  last_paused_at: { kind: 'datetime', nullable: true },
  start_at: { kind: 'datetime', nullable: true },
  end_at: { kind: 'datetime', nullable: true },
  hogql_query: { kind: 'string', blank: true, nullable: true },
  filters: { kind: 'json', nullable: true },
  timezone: { kind: 'string', nullable: true },
  offset_day: { kind: 'int32', nullable: true, min: 0, max: 6 },
  offset_hour: { kind: 'int32', nullable: true, min: 0, max: 23 },
};

const DESTINATION_FIELDS: Schema = {
  type: { kind: 'choice', choices: DESTINATION_TYPES, required: true },
  config: { kind: 'object' },
  integration: { kind: 'int32', nullable: true },
  integration_id: { kind: 'int32', nullable: true },
};

const BACKFILL_FIELDS: Schema = {
  start_at: { kind: 'datetime', required: true },
  end_at: { kind: 'datetime', required: true },
};

function findExport(ctx: RouteContext): StoredBatchExport {
  const { org } = requireOrganization(ctx);
  const record = ctx.store.batchExports.get(normalizeUuid(ctx.params.id ?? '') ?? '');
  return found(record?.organization_id === org.id ? record : undefined);
}

/** Applies validated fields; a PATCHed destination keeps its type unless given and merges its config, as live. */
function applyFields(ctx: RouteContext, record: StoredBatchExport, fields: Fields, partial: boolean): void {
  const { destination, ...rest } = fields;
  if (destination !== undefined) {
    const given = validateFields(destination, DESTINATION_FIELDS, partial, 'destination__');
    // The live serializer takes the integration under either name and answers it under both.
    const integration = given.integration_id ?? given.integration;
    const keptIntegration = partial ? record.destination.integration : null;
    record.destination = {
      type: typeof given.type === 'string' ? given.type : record.destination.type,
      config: { ...(partial ? record.destination.config : {}), ...(isPlainObject(given.config) ? given.config : {}) },
      integration: integration === undefined ? keptIntegration : (integration as number | null),
      integration_id: integration === undefined ? keptIntegration : (integration as number | null),
    };
  }
  const wasPaused = record.paused;
  Object.assign(record, rest);
  // Pausing through an update stamps last_paused_at, unless the body sets it.
  if (rest.paused === true && !wasPaused && rest.last_paused_at === undefined) record.last_paused_at = ctx.store.now();
  if ('hogql_query' in rest) {
    // The live service derives a schema from the query; here it only echoes the query.
    record.schema = rest.hogql_query ? { fields: [], values: {}, hogql_query: rest.hogql_query } : null;
  }
  record.last_updated_at = ctx.store.now();
}

function list(ctx: RouteContext) {
  const { org } = requireOrganization(ctx);
  return listReply(ctx, ctx.store.batchExportsOf(org.id), serializeBatchExport);
}

function create(ctx: RouteContext) {
  const { org } = requireOrganization(ctx);
  const fields = validateFields(ctx.body, EXPORT_FIELDS, false);
  const record = ctx.store.addBatchExport(org.id, { name: String(fields.name) });
  applyFields(ctx, record, fields, false);
  return created(serializeBatchExport(record));
}

function retrieve(ctx: RouteContext) {
  return ok(serializeBatchExport(findExport(ctx)));
}

function update(ctx: RouteContext) {
  const record = findExport(ctx);
  applyFields(ctx, record, validateFields(ctx.body, EXPORT_FIELDS, true), true);
  return ok(serializeBatchExport(record));
}

function destroy(ctx: RouteContext) {
  ctx.store.batchExports.delete(findExport(ctx).id);
  return noContent();
}

/** Pausing a paused export changes nothing (the live service returns early too). */
function pause(ctx: RouteContext) {
  const record = findExport(ctx);
  if (!record.paused) {
    record.paused = true;
    record.last_paused_at = ctx.store.now();
    record.last_updated_at = record.last_paused_at;
  }
  return ok(ctx.settings.liveShapes ? { paused: true } : serializeBatchExport(record));
}

function unpause(ctx: RouteContext) {
  const record = findExport(ctx);
  if (record.paused) {
    record.paused = false;
    record.last_updated_at = ctx.store.now();
  }
  return ok(ctx.settings.liveShapes ? { paused: false } : serializeBatchExport(record));
}

/** Records a `Starting` run over [start_at, end_at]; the live service rejects start_at >= end_at. */
function backfill(ctx: RouteContext) {
  const record = findExport(ctx);
  const fields = validateFields(ctx.body, BACKFILL_FIELDS, false);
  const start = String(fields.start_at);
  const end = String(fields.end_at);
  if (Date.parse(start) >= Date.parse(end)) {
    throw validationError('invalid_input', "The initial backfill datetime 'start_at' happens after 'end_at'");
  }
  const run = ctx.store.addBatchExportRun(record, { data_interval_start: start, data_interval_end: end, status: 'Starting' });
  return ok(ctx.settings.liveShapes ? { backfill_id: run.id } : serializeBatchExport(record));
}

const base = '/api/organizations/:organization_id/batch_exports';
export const batchExportRoutes: Route[] = [
  { path: base, scope: 'batch_export', handlers: { GET: list, POST: create } },
  { path: `${base}/:id`, scope: 'batch_export', handlers: { GET: retrieve, PATCH: update, DELETE: destroy } },
  { path: `${base}/:id/pause`, scope: 'batch_export', handlers: { POST: pause } },
  { path: `${base}/:id/unpause`, scope: 'batch_export', handlers: { POST: unpause } },
  { path: `${base}/:id/backfill`, scope: 'batch_export', handlers: { POST: backfill } },
];
