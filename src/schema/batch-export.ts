import { type BatchExportRecord, type BatchExportRunRecord, tagRun } from '../loaders/tagged-records.ts';
import type { BatchExportDestination } from '../wire/rest-types.ts';
import { builder } from './builder.ts';
import { registerNode, retrieveCall } from './node-registry.ts';
import { nodeType } from './node-type.ts';
import { BatchExportDestinationRef, BatchExportRef, BatchExportRunRef } from './refs.ts';
import { type RestFieldTable, restFields } from './rest-fields.ts';
import { connectionTypes } from './rest-list-fields.ts';
import { requiresScope } from './scopes.ts';

const READ = requiresScope('batch_export:read');

/** Writable fields that read and write alike: shared with the batch export mutations' inputs. */
export const BATCH_EXPORT_SETTINGS = {
  model: ['model', 'String', 'Which model is exported: `events` or `persons`.'],
  interval: ['interval', 'String', 'How often it runs: `hour`, `day`, `week`, `every 5 minutes` or `every 15 minutes`.'],
  paused: ['paused', 'Boolean', 'Whether the export is paused.'],
  lastPausedAt: ['last_paused_at', 'DateTime', 'When the export was last paused.'],
  startAt: ['start_at', 'DateTime', 'Runs are not triggered before this time.'],
  endAt: ['end_at', 'DateTime', 'Runs are not triggered after this time.'],
  hogqlQuery: ['hogql_query', 'String', 'The HogQL query that selects what is exported.'],
  filters: ['filters', 'JSON', 'Property filters that select which events are exported.'],
  timezone: ['timezone', 'String', 'The time zone that daily and weekly intervals follow, e.g. `UTC` or `Europe/Berlin`.'],
  offsetDay: ['offset_day', 'Int', 'For weekly exports: the day the interval starts, 0 (Sunday) to 6.'],
  offsetHour: ['offset_hour', 'Int', 'For daily and weekly exports: the hour the interval starts, 0 to 23.'],
} satisfies RestFieldTable<BatchExportRecord>;

/** The destination's fields, read and written alike. */
export const DESTINATION_FIELDS = {
  type: ['type', 'String', 'Destination kind, e.g. `S3`, `Snowflake`, `Postgres`, `BigQuery`, `Redshift`, `HTTP`.'],
  config: ['config', 'JSON', 'Destination settings; their shape depends on `type`.'],
  integration: ['integration', 'Int', 'The REST id of the integration that authenticates the destination (e.g. BigQuery), if any.'],
  integrationId: ['integration_id', 'Int', 'The same integration id, under the name the service also accepts on writes.'],
} satisfies RestFieldTable<BatchExportDestination>;

nodeType(BatchExportRef, {
  description: `A scheduled export of events or persons to a destination. ${READ}`,
  idParts: (e) => [e.$org, e.id],
  fields: (t) => ({
    databaseId: t.field({ type: 'UUID', nullable: false, description: 'The REST `id`.', resolve: (e) => e.id }),
    ...restFields<BatchExportRecord>(t, {
      teamId: ['team_id', 'Int', 'The project (team) whose data is exported.'],
      name: ['name', 'String', 'Human-readable name.'],
      ...BATCH_EXPORT_SETTINGS,
      createdAt: ['created_at', 'DateTime', 'When the export was created.'],
      lastUpdatedAt: ['last_updated_at', 'DateTime', 'When the export was last changed.'],
      schema: ['schema', 'JSON', 'The export schema, when it has one.'],
    }),
    destination: t.expose('destination', { type: BatchExportDestinationRef, description: 'Where the data goes.' }),
    latestRuns: t.field({
      type: [BatchExportRunRef],
      nullable: false,
      description: 'The most recent runs, newest first (no extra upstream call).',
      resolve: (e) => (e.latest_runs ?? []).map((run) => tagRun(run, e)),
    }),
  }),
});

builder.objectType(BatchExportDestinationRef, {
  description: 'The destination of a batch export.',
  fields: (t) => ({
    ...restFields<BatchExportDestination>(t, DESTINATION_FIELDS),
  }),
});

nodeType(BatchExportRunRef, {
  description: `One run of a batch export; reached through \`BatchExport.latestRuns\`. ${READ}`,
  idParts: (run) => [run.$org, run.$export, run.id],
  fields: (t) => ({
    databaseId: t.field({ type: 'UUID', nullable: false, description: 'The REST `id`.', resolve: (run) => run.id }),
    ...restFields<BatchExportRunRecord>(t, {
      status: ['status', 'String', 'Run status, e.g. `Starting`, `Running`, `Completed`, `Failed`, `Cancelled`.'],
      recordsCompleted: ['records_completed', 'Int', 'Records exported so far.'],
      latestError: ['latest_error', 'String', 'The last error, when the run failed.'],
      dataIntervalStart: ['data_interval_start', 'DateTime', 'Start of the exported data interval.'],
      dataIntervalEnd: ['data_interval_end', 'DateTime', 'End of the exported data interval.'],
      cursor: ['cursor', 'String', 'Opaque run cursor.'],
      createdAt: ['created_at', 'DateTime', 'When the run was created.'],
      finishedAt: ['finished_at', 'DateTime', 'When the run finished.'],
      lastUpdatedAt: ['last_updated_at', 'DateTime', 'When the run was last changed.'],
      recordsTotalCount: ['records_total_count', 'Int', 'Records the run has to export.'],
      batchExport: ['batch_export', 'UUID', 'The REST id of the export the run belongs to.'],
      bytesExported: ['bytes_exported', 'Float', 'Bytes the run exported (a 64-bit count, past `Int`, so a `Float`).'],
      backfill: ['backfill', 'UUID', 'The REST id of the backfill the run belongs to, if any.'],
    }),
  }),
});

registerNode('BatchExport', {
  shape: ['uuid', 'uuid'],
  call: ([orgId, id]) => retrieveCall('BatchExport', orgId as string, id as string),
  load: ([orgId, id], context) => context.loaders.batchExports.byId(orgId as string, id as string),
});

// A run comes with its export: looking it up is the export's retrieve, shared with the export's own.
registerNode('BatchExportRun', {
  shape: ['uuid', 'uuid', 'uuid'],
  call: ([orgId, exportId]) => retrieveCall('BatchExport', orgId as string, exportId as string),
  load: async ([orgId, exportId, runId], context) => {
    const exportRecord = await context.loaders.batchExports.byId(orgId as string, exportId as string);
    const run = exportRecord?.latest_runs?.find((r) => r.id === runId);
    return run && exportRecord ? tagRun(run, exportRecord) : null;
  },
});

export const BatchExportConnection = connectionTypes(BatchExportRef, {
  connection: 'BatchExportConnection',
  edge: 'BatchExportEdge',
  what: 'batch exports',
});
