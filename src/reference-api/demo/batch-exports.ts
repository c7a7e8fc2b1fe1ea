// Demo batch exports: every destination type and interval, some paused, some with runs.
import type { BatchExportDestination } from '../../wire/rest-types.ts';
import type { ReferenceStore } from '../store.ts';
import type { StoredOrganization } from '../stored-records.ts';
import { shiftTimestamp as at } from '../time.ts';

const DESTINATIONS: Omit<BatchExportDestination, 'integration' | 'integration_id'>[] = [
  {
    type: 'S3',
    config: { bucket_name: 'hedgehog-exports', region: 'us-east-1', prefix: 'posthog/', file_format: 'Parquet', compression: 'zstd' },
  },
  {
    type: 'Snowflake',
    config: {
      account: 'hh12345.us-east-1',
      database: 'ANALYTICS',
      warehouse: 'COMPUTE_WH',
      schema: 'POSTHOG',
      table_name: 'events',
      user: 'posthog_export',
      role: 'EXPORTER',
    },
  },
  {
    type: 'Postgres',
    config: {
      host: 'db.hedgehog.example',
      port: 5432,
      database: 'analytics',
      schema: 'public',
      table_name: 'events',
      user: 'posthog',
      has_self_signed_cert: false,
    },
  },
  { type: 'BigQuery', config: { project_id: 'hedgehog-analytics', dataset_id: 'posthog', table_id: 'events', use_json_type: true } },
  {
    type: 'Redshift',
    config: { host: 'warehouse.hedgehog.example', port: 5439, database: 'dev', schema: 'posthog', table_name: 'events', user: 'exporter' },
  },
  { type: 'HTTP', config: { url: 'https://ingest.hedgehog.example/v1/events' } },
];
const INTERVALS = ['hour', 'day', 'week', 'every 5 minutes', 'every 15 minutes'];
const INTERVAL_HOURS: Record<string, number> = { hour: 1, day: 24, week: 168, 'every 5 minutes': 1 / 12, 'every 15 minutes': 0.25 };
const RUN_STATUSES = ['Completed', 'Failed', 'Running', 'Cancelled', 'Completed'];

/** `count` batch exports in `org`, created an hour apart; every third of the first twelve has runs. */
export function addDemoBatchExports(store: ReferenceStore, org: StoredOrganization, count: number, since: string): void {
  for (let i = 1; i <= count; i++) {
    const destination = DESTINATIONS[(i - 1) % DESTINATIONS.length] as (typeof DESTINATIONS)[number];
    // BigQuery authenticates through an integration in the live service.
    const integration = destination.type === 'BigQuery' ? 7 : null;
    const model = i % 4 === 0 ? 'persons' : 'events';
    const interval = INTERVALS[(i - 1) % INTERVALS.length] ?? 'hour';
    const created = at(since, i);
    const paused = i % 6 === 0;
    const record = store.addBatchExport(org.id, {
      name: `${destination.type} ${model} export ${String(i).padStart(2, '0')}`,
      model,
      destination: { ...structuredClone(destination), integration, integration_id: integration },
      interval,
      paused,
      created_at: created,
      last_updated_at: at(created, 2),
      last_paused_at: paused ? at(created, 48) : null,
      start_at: i % 5 === 0 ? at(since, 24) : null,
      end_at: i % 10 === 0 ? at(since, 24 * 90) : null,
      hogql_query: i % 7 === 0 ? 'SELECT event, timestamp, distinct_id, properties FROM events' : null,
      filters: i % 8 === 0 ? [{ key: '$browser', operator: 'exact', type: 'event', value: ['Chrome'] }] : null,
      timezone: i % 3 === 0 ? 'Europe/Berlin' : 'UTC',
      // Daily and weekly exports may start at an offset; weekly ones on a given day.
      offset_hour: interval === 'day' || interval === 'week' ? i % 24 : null,
      offset_day: interval === 'week' ? i % 7 : null,
    });
    if (record.hogql_query) record.schema = { fields: [], values: {}, hogql_query: record.hogql_query };
    if (i <= 12 && i % 3 === 1) {
      const step = INTERVAL_HOURS[interval] ?? 1;
      // Oldest first, so the newest run ends up first in latest_runs.
      for (let r = 2; r >= 0; r--) {
        const start = at(created, 24 + r * step);
        const end = at(created, 24 + (r + 1) * step);
        const status = RUN_STATUSES[(i + r) % RUN_STATUSES.length] ?? 'Completed';
        const done = status !== 'Running';
        store.addBatchExportRun(record, {
          status,
          records_completed: done && status !== 'Failed' ? 1000 * (i + r) : null,
          latest_error: status === 'Failed' ? 'NoSuchBucket: The specified bucket does not exist' : null,
          data_interval_start: start,
          data_interval_end: end,
          cursor: null,
          created_at: end,
          finished_at: done ? at(end, 0.1) : null,
          last_updated_at: at(end, 0.1),
          records_total_count: 1000 * (i + r),
          // Past 2^31 for the first export, as a busy live export's byte count is.
          bytes_exported: done && status !== 'Failed' ? (i === 1 ? 3_221_225_472 * (r + 1) : 52_000 * (i + r)) : null,
        });
      }
    }
  }
}
