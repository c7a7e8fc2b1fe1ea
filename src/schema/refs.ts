// Object refs for every record type, declared apart from their fields so type files can point at
// each other without import cycles.
import {
  type BatchExportRecord,
  type BatchExportRunRecord,
  type DomainRecord,
  type InviteRecord,
  type MemberRecord,
  type OrganizationRecord,
  PIPELINE_TYPENAMES,
  type PipelineItemRecord,
  type ProjectRecord,
  type SurveyRecord,
} from '../loaders/tagged-records.ts';
import type { BatchExportDestination, FeatureFlag, User } from '../wire/rest-types.ts';
import { builder } from './builder.ts';

export const OrganizationRef = builder.objectRef<OrganizationRecord>('Organization');
export const BatchExportRef = builder.objectRef<BatchExportRecord>('BatchExport');
export const BatchExportRunRef = builder.objectRef<BatchExportRunRecord>('BatchExportRun');
export const BatchExportDestinationRef = builder.objectRef<BatchExportDestination>('BatchExportDestination');
export const DomainRef = builder.objectRef<DomainRecord>('Domain');
export const InviteRef = builder.objectRef<InviteRecord>('Invite');
export const MemberRef = builder.objectRef<MemberRecord>('Member');
export const UserRef = builder.objectRef<User>('User');
export const FeatureFlagRef = builder.objectRef<FeatureFlag>('FeatureFlag');
export const ProjectRef = builder.objectRef<ProjectRecord>('Project');
export const SurveyRef = builder.objectRef<SurveyRecord>('Survey');
export const PipelineItemRef = builder.interfaceRef<PipelineItemRecord>('PipelineItem');
export const PipelineDestinationRef = builder.objectRef<PipelineItemRecord>(PIPELINE_TYPENAMES.pipeline_destinations);
export const PipelineFrontendAppRef = builder.objectRef<PipelineItemRecord>(PIPELINE_TYPENAMES.pipeline_frontend_apps);
export const PipelineImportAppRef = builder.objectRef<PipelineItemRecord>(PIPELINE_TYPENAMES.pipeline_import_apps);
