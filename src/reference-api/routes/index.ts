// Every route of seed section 4, family by family.
import type { Route } from '../router.ts';
import { batchExportRoutes } from './batch-exports.ts';
import { domainRoutes } from './domains.ts';
import { inviteRoutes } from './invites.ts';
import { memberRoutes } from './members.ts';
import { organizationRoutes } from './organizations.ts';
import { pipelineRoutes } from './pipeline.ts';
import { surveyRoutes } from './surveys.ts';

export const allRoutes: readonly Route[] = [
  ...organizationRoutes,
  ...batchExportRoutes,
  ...domainRoutes,
  ...inviteRoutes,
  ...memberRoutes,
  ...pipelineRoutes,
  ...surveyRoutes,
];
