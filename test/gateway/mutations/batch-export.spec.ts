// Batch export mutations, including pause/unpause/backfill in both answer shapes: the live service
// answers `{"paused": bool}` / `{"backfill_id": ...}`, so the gateway reads the export again.
import { describe, expect, it } from 'vitest';
import type { ReferenceApi } from '../../../src/reference-api/index.ts';
import type { Harness } from '../../support/harness.ts';
import { useHarness } from '../../support/harness.ts';
import { UNKNOWN_UUID } from '../../support/ids.ts';
import { deleteCase, describeMutations, freshOrg, globalId, type MutationCase, mutate, orgId, SHAPES } from './support.ts';

const SELECTION =
  'batchExport { id databaseId name model interval paused lastPausedAt startAt endAt hogqlQuery destination { type config } latestRuns { status dataIntervalStart dataIntervalEnd } }';

function freshExport(api: ReferenceApi, fields: { paused?: boolean } = {}) {
  const org = freshOrg(api);
  const record = api.store.addBatchExport(org.id, { name: 'Scratch export', ...fields });
  return { org, record, id: globalId('BatchExport', org.id, record.id), path: `/api/organizations/${org.id}/batch_exports/${record.id}/` };
}

const missingExport = (h: Harness) => ({ id: globalId('BatchExport', freshOrg(h.api).id, UNKNOWN_UUID) });
const wrongType = (h: Harness) => ({ id: orgId(freshOrg(h.api)) });

/** pause and unpause: the same checks, the other way round. */
function pauseCase(name: 'pauseBatchExport' | 'unpauseBatchExport', action: 'pause' | 'unpause'): MutationCase {
  const pausedAfter = action === 'pause';
  return {
    name,
    selection: SELECTION,
    scope: 'batch_export:write',
    arrange: (h, live) => {
      const { record, id, path } = freshExport(h.api, { paused: !pausedAfter });
      return {
        input: { id },
        method: 'POST',
        path: `${path}${action}/`,
        body: undefined,
        check: ({ batchExport }) => {
          expect(batchExport).toMatchObject({ id, databaseId: record.id, paused: pausedAfter });
          expect(record.paused).toBe(pausedAfter);
          // The live answer does not carry the export: it is read again (and only then).
          const routes = h.api.requests.map((r) => `${r.method} ${r.path}`);
          expect(routes).toEqual(live ? [`POST ${path}${action}/`, `GET ${path}`] : [`POST ${path}${action}/`]);
        },
      };
    },
    missing: missingExport,
    wrongType,
  };
}

const cases: MutationCase[] = [
  {
    name: 'createBatchExport',
    selection: SELECTION,
    scope: 'batch_export:write',
    arrange: (h) => {
      const org = freshOrg(h.api);
      const destination = { type: 'S3', config: { bucket_name: 'b', region: 'eu-west-1' } };
      return {
        input: { organizationId: orgId(org), name: 'Nightly', destination, interval: 'day', startAt: '2026-05-01T00:00:00Z' },
        method: 'POST',
        path: `/api/organizations/${org.id}/batch_exports/`,
        body: { name: 'Nightly', destination, interval: 'day', start_at: '2026-05-01T00:00:00Z' },
        check: ({ batchExport }) => {
          expect(batchExport).toMatchObject({ name: 'Nightly', interval: 'day', destination, paused: false });
          expect(batchExport.id).toBe(globalId('BatchExport', org.id, batchExport.databaseId));
          expect(h.api.store.batchExports.get(batchExport.databaseId)?.organization_id).toBe(org.id);
        },
      };
    },
    invalid: (h) => ({
      input: { organizationId: orgId(freshOrg(h.api)), name: 'x', destination: { type: 'Carrier pigeon' }, interval: 'hour' },
      field: 'destination.type',
      code: 'invalid_choice',
    }),
    missing: () => ({ organizationId: globalId('Organization', UNKNOWN_UUID), name: 'x', destination: { type: 'S3' }, interval: 'hour' }),
    wrongType: (h) => ({ organizationId: freshExport(h.api).id, name: 'x' }),
  },
  {
    name: 'updateBatchExport',
    selection: SELECTION,
    scope: 'batch_export:write',
    arrange: (h) => {
      const { record, id, path } = freshExport(h.api);
      return {
        input: { id, name: 'Renamed', hogqlQuery: null, destination: { config: { prefix: 'x/' } } },
        method: 'PATCH',
        path,
        body: { name: 'Renamed', hogql_query: null, destination: { config: { prefix: 'x/' } } },
        check: ({ batchExport }) => {
          expect(batchExport).toMatchObject({
            id,
            name: 'Renamed',
            hogqlQuery: null,
            destination: { type: 'S3', config: { prefix: 'x/' } },
          });
          expect(record.name).toBe('Renamed');
        },
      };
    },
    invalid: (h) => ({ input: { id: freshExport(h.api).id, interval: 'fortnightly' }, field: 'interval', code: 'invalid_choice' }),
    missing: missingExport,
    wrongType,
    patch: { value: ['startAt', '2026-06-01T00:00:00Z', 'start_at'], nulled: ['endAt', 'end_at'] },
  },
  deleteCase(
    'deleteBatchExport',
    'batch_export:write',
    (h) => {
      const { record, id, path } = freshExport(h.api);
      return { id, path, exists: () => h.api.store.batchExports.has(record.id) };
    },
    { missing: missingExport, wrongType },
  ),
  pauseCase('pauseBatchExport', 'pause'),
  pauseCase('unpauseBatchExport', 'unpause'),
  {
    name: 'backfillBatchExport',
    selection: `${SELECTION} backfillId`,
    scope: 'batch_export:write',
    arrange: (h, live) => {
      const { record, id, path } = freshExport(h.api);
      const interval = { startAt: '2026-04-01T00:00:00Z', endAt: '2026-04-02T00:00:00Z' };
      return {
        input: { id, ...interval },
        method: 'POST',
        path: `${path}backfill/`,
        body: { start_at: interval.startAt, end_at: interval.endAt },
        check: ({ batchExport, backfillId }) => {
          // The upstream stores the interval with microseconds.
          const stored = { dataIntervalStart: '2026-04-01T00:00:00.000000Z', dataIntervalEnd: '2026-04-02T00:00:00.000000Z' };
          const [run] = record.latest_runs;
          expect(run).toMatchObject({
            status: 'Starting',
            data_interval_start: stored.dataIntervalStart,
            data_interval_end: stored.dataIntervalEnd,
          });
          expect(batchExport.latestRuns[0]).toEqual({ status: 'Starting', ...stored });
          // Only the live answer names the backfill; the seed's answer is the export itself.
          expect(backfillId).toBe(live ? run?.id : null);
          const routes = h.api.requests.map((r) => `${r.method} ${r.path}`);
          expect(routes).toEqual(live ? [`POST ${path}backfill/`, `GET ${path}`] : [`POST ${path}backfill/`]);
        },
      };
    },
    invalid: (h) => ({ input: { id: freshExport(h.api).id, startAt: '2026-04-01T00:00:00Z' }, field: 'endAt', code: 'required' }),
    missing: (h) => ({ ...missingExport(h), startAt: '2026-04-01T00:00:00Z', endAt: '2026-04-02T00:00:00Z' }),
    wrongType,
  },
];

describeMutations(cases);

describe.each(SHAPES)('batch export actions in one operation ($shape)', ({ liveShapes }) => {
  const harness = useHarness({ liveShapes });

  it('a later field sees what an earlier one wrote (update, then pause)', async () => {
    const h = harness();
    const { id } = freshExport(h.api);
    const run = await h.runCounting(
      `mutation ($id: ID!) {
        renamed: updateBatchExport(input: { id: $id, name: "Renamed first" }) { ... on UpdateBatchExportPayload { batchExport { name paused } } }
        paused: pauseBatchExport(input: { id: $id }) { ... on PauseBatchExportPayload { batchExport { name paused } } }
      }`,
      { id },
    );
    expect(run.errors).toBeUndefined();
    expect(run.data).toEqual({
      renamed: { batchExport: { name: 'Renamed first', paused: false } },
      paused: { batchExport: { name: 'Renamed first', paused: true } },
    });
    expect(run.calls.filter((c) => c.method !== 'GET').map((c) => c.method)).toEqual(['PATCH', 'POST']);
  });

  it('pausing a paused export answers the export unchanged', async () => {
    const h = harness();
    const { record, id } = freshExport(h.api, { paused: true });
    const lastPausedAt = '2026-01-01T00:00:00Z';
    record.last_paused_at = lastPausedAt;
    const run = await mutate(h, 'pauseBatchExport', { id }, { selection: 'batchExport { paused lastPausedAt }' });
    expect(run.result).toEqual({
      __typename: 'PauseBatchExportPayload',
      clientMutationId: null,
      batchExport: { paused: true, lastPausedAt },
    });
  });
});
