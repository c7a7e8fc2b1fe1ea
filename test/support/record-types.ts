// The contract's record types (contract: Identifiers): every one is a Node and a federation entity.
export const RECORD_TYPES = [
  'BatchExport',
  'BatchExportRun',
  'Domain',
  'Invite',
  'Member',
  'Organization',
  'PipelineDestination',
  'PipelineFrontendApp',
  'PipelineImportApp',
  'Project',
  'Survey',
];
