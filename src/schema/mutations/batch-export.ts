// createBatchExport, updateBatchExport, deleteBatchExport and the actions pause, unpause and
// backfill (seed 4.2). The live service answers pause/unpause `{"paused": bool}` and backfill
// `{"backfill_id": ...}`: the export is then read again, and the backfill id exposed.
import type { BatchExportRecord } from '../../loaders/tagged-records.ts';
import type { BatchExport } from '../../wire/rest-types.ts';
import { builder } from '../builder.ts';
import { BatchExportRef } from '../refs.ts';
import { type InputSpec, restInputFields } from './input.ts';
import { actionMutation, createMutation, deleteMutation, type RecordKind, updateMutation } from './record-mutations.ts';

const BATCH_EXPORT: RecordKind<BatchExport, BatchExportRecord> = {
  typeName: 'BatchExport',
  ref: BatchExportRef,
  field: 'batchExport',
  noun: 'batch export',
  scope: 'batch_export:write',
  parent: { typeName: 'Organization', inputField: 'organizationId', noun: 'organization' },
  loader: (context) => context.loaders.batchExports,
  retrieve: (rest, at) => rest.getBatchExport(at.parentId, at.pathId),
};

const DestinationInput = builder.inputType('BatchExportDestinationInput', {
  description: 'Where a batch export sends its data. On update, a field left out is left unchanged upstream.',
  fields: (t) =>
    restInputFields(t, {
      type: ['String', 'Destination kind, e.g. `S3`, `Snowflake`, `Postgres`, `BigQuery`, `Redshift`, `HTTP`.'],
      config: ['JSON', 'Destination settings; their shape depends on `type`.'],
    }),
});

const FIELDS: InputSpec = {
  name: ['String', 'Human-readable name (the minimal create example gives `name`, `destination`, `interval`).'],
  model: ['String', 'Which model is exported: `events` or `persons`.'],
  destination: [DestinationInput, 'Where the data goes.'],
  interval: ['String', 'How often it runs: `hour`, `day`, `week`, `every 5 minutes` or `every 15 minutes`.'],
  paused: ['Boolean', 'Whether the export is paused.'],
  last_paused_at: ['DateTime', 'When the export was last paused.'],
  start_at: ['DateTime', 'Runs are not triggered before this time.'],
  end_at: ['DateTime', 'Runs are not triggered after this time.'],
  hogql_query: ['String', 'The HogQL query that selects what is exported.'],
};

createMutation(BATCH_EXPORT, {
  description: 'Creates a batch export in an organization.',
  fields: FIELDS,
  send: (rest, orgId, body) => rest.createBatchExport(orgId, body),
});

updateMutation(BATCH_EXPORT, {
  description: 'Changes a batch export.',
  fields: FIELDS,
  send: (rest, at, body) => rest.updateBatchExport(at.parentId, at.pathId, body),
});

deleteMutation(BATCH_EXPORT, {
  description: 'Deletes a batch export.',
  send: (rest, at) => rest.deleteBatchExport(at.parentId, at.pathId),
});

actionMutation(BATCH_EXPORT, {
  name: 'pauseBatchExport',
  description: 'Pauses a batch export (pausing a paused export changes nothing).',
  send: (rest, at) => rest.pauseBatchExport(at.parentId, at.pathId),
});

actionMutation(BATCH_EXPORT, {
  name: 'unpauseBatchExport',
  description: 'Unpauses a batch export.',
  send: (rest, at) => rest.unpauseBatchExport(at.parentId, at.pathId),
});

actionMutation(BATCH_EXPORT, {
  name: 'backfillBatchExport',
  description: 'Triggers a backfill of a batch export over [`startAt`, `endAt`].',
  fields: {
    start_at: ['DateTime', 'Start of the interval to backfill.'],
    end_at: ['DateTime', 'End of the interval to backfill.'],
  },
  send: (rest, at, body) => rest.backfillBatchExport(at.parentId, at.pathId, body ?? {}),
  answerFields: (t) => ({
    backfillId: t.string({
      description: "The backfill's id, when the upstream answers with one (the live service does; the seed's answer is the export).",
      resolve: ({ answer }: { answer: unknown }) => backfillIdOf(answer),
    }),
  }),
});

function backfillIdOf(answer: unknown): string | null {
  const id = typeof answer === 'object' && answer !== null ? (answer as { backfill_id?: unknown }).backfill_id : undefined;
  return id === undefined || id === null ? null : String(id);
}
