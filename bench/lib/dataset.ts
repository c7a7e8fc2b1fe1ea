// The benchmark's upstream data: the reference API's generated organizations (src/reference-api/
// generated-data.ts) at these sizes, owned by the user every bench key belongs to.
import type { GeneratedDataSizes } from '../../src/reference-api/generated-data.ts';

export const DATASET_SIZES = {
  organizations: 5,
  batchExports: 10,
  domains: 5,
  members: 10,
  invites: 5,
  pipelineDestinations: 10,
  pipelineFrontendApps: 2,
  pipelineImportApps: 2,
  projectsPerOrganization: 2,
  surveysPerProject: 5,
} as const satisfies GeneratedDataSizes;
