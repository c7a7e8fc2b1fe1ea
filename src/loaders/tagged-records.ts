// REST records as the schema sees them: tagged with the parent ids their global ids carry.
import type {
  BatchExport,
  BatchExportRun,
  Domain,
  Invite,
  Member,
  Organization,
  PipelineFamily,
  PipelineItem,
  Survey,
} from '../wire/rest-types.ts';

// `$type` is the GraphQL type name: the Node and PipelineItem interfaces resolve by it.
export type OrganizationRecord = Organization & { $type: 'Organization' };
export type BatchExportRecord = BatchExport & { $type: 'BatchExport'; $org: string };
export type BatchExportRunRecord = BatchExportRun & { $type: 'BatchExportRun'; $org: string; $export: string };
export type DomainRecord = Domain & { $type: 'Domain'; $org: string };
export type InviteRecord = Invite & { $type: 'Invite'; $org: string };
export type MemberRecord = Member & { $type: 'Member'; $org: string };
export type PipelineItemRecord = PipelineItem & { $type: PipelineItemTypename; $org: string; $family: PipelineFamily };
export type SurveyRecord = Survey & { $type: 'Survey'; $project: string };

/** Projects have no REST record: they are derived from an organization's `teams`. */
export interface ProjectRecord {
  $type: 'Project';
  projectId: string;
  name: string | null;
}

/** The GraphQL type of each pipeline family's items: the one place the pairing is written (src/schema/refs.ts names the types by it). */
export const PIPELINE_TYPENAMES = {
  pipeline_destinations: 'PipelineDestination',
  pipeline_frontend_apps: 'PipelineFrontendApp',
  pipeline_import_apps: 'PipelineImportApp',
} as const satisfies Record<PipelineFamily, string>;
type PipelineItemTypename = (typeof PIPELINE_TYPENAMES)[PipelineFamily];

/** Tags a run of an export (runs have no REST endpoint of their own: they come with the export). */
export function tagRun(run: BatchExportRun, exportRecord: BatchExportRecord): BatchExportRunRecord {
  return Object.assign(run, { $type: 'BatchExportRun' as const, $org: exportRecord.$org, $export: exportRecord.id });
}
