// createBatchExport, updateBatchExport, deleteBatchExport and the actions pause, unpause and
// backfill (seed 4.2). The live service answers pause/unpause `{"paused": bool}` and backfill
// `{"backfill_id": ...}`: the export is then read again, and the backfill id exposed.
import type { BatchExportRecord } from '../../loaders/tagged-records.ts';
import type { BatchExport } from '../../wire/rest-types.ts';
import { BATCH_EXPORT_SETTINGS, DESTINATION_FIELDS } from '../batch-export.ts';
import { builder } from '../builder.ts';
import { BatchExportRef } from '../refs.ts';
import { type RestInputTable, restInputFields } from '../rest-fields.ts';
import { actionMutation, createMutation, deleteMutation, type RecordKind, updateMutation } from './record-mutations.ts';

const BATCH_EXPORT: RecordKind<BatchExport, BatchExportRecord> = {
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
  fields: (t) => restInputFields(t, DESTINATION_FIELDS),
});

const FIELDS: RestInputTable = {
  name: ['name', 'String', 'Human-readable name (the minimal create example gives `name`, `destination`, `interval`).'],
  destination: ['destination', DestinationInput, 'Where the data goes.', { fields: DESTINATION_FIELDS }],
  ...BATCH_EXPORT_SETTINGS,
};

createMutation(BATCH_EXPORT, {
  names: ['createBatchExport', 'CreateBatchExportInput', 'CreateBatchExportPayload', 'CreateBatchExportResult'],
  description: 'Creates a batch export in an organization.',
  fields: FIELDS,
  send: (rest, orgId, body) => rest.createBatchExport(orgId, body),
});

updateMutation(BATCH_EXPORT, {
  names: ['updateBatchExport', 'UpdateBatchExportInput', 'UpdateBatchExportPayload', 'UpdateBatchExportResult'],
  description: 'Changes a batch export.',
  fields: FIELDS,
  send: (rest, at, body) => rest.updateBatchExport(at.parentId, at.pathId, body),
});

deleteMutation(BATCH_EXPORT, {
  names: ['deleteBatchExport', 'DeleteBatchExportInput', 'DeleteBatchExportPayload', 'DeleteBatchExportResult'],
  description: 'Deletes a batch export.',
  send: (rest, at) => rest.deleteBatchExport(at.parentId, at.pathId),
});

actionMutation(BATCH_EXPORT, {
  names: ['pauseBatchExport', 'PauseBatchExportInput', 'PauseBatchExportPayload', 'PauseBatchExportResult'],
  description: 'Pauses a batch export (pausing a paused export changes nothing).',
  send: (rest, at) => rest.pauseBatchExport(at.parentId, at.pathId),
});

actionMutation(BATCH_EXPORT, {
  names: ['unpauseBatchExport', 'UnpauseBatchExportInput', 'UnpauseBatchExportPayload', 'UnpauseBatchExportResult'],
  description: 'Unpauses a batch export.',
  send: (rest, at) => rest.unpauseBatchExport(at.parentId, at.pathId),
});

actionMutation(BATCH_EXPORT, {
  names: ['backfillBatchExport', 'BackfillBatchExportInput', 'BackfillBatchExportPayload', 'BackfillBatchExportResult'],
  description: 'Triggers a backfill of a batch export over [`startAt`, `endAt`].',
  fields: {
    startAt: ['start_at', 'DateTime', 'Start of the interval to backfill.'],
    endAt: ['end_at', 'DateTime', 'End of the interval to backfill.'],
  },
  send: (rest, at, body) => rest.backfillBatchExport(at.parentId, at.pathId, body ?? {}),
  answerFields: (t) => ({
    backfillId: t.string({
      description: "The backfill's id, when the upstream answers with one (the live service does; the seed's answer is the export).",
      resolve: ({ answer }) => backfillIdOf(answer),
    }),
  }),
});

function backfillIdOf(answer: unknown): string | null {
  const id = typeof answer === 'object' && answer !== null ? (answer as { backfill_id?: unknown }).backfill_id : undefined;
  return id === undefined || id === null ? null : String(id);
}
