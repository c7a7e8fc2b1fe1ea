// Organization (seed 2.2, 4.1): its REST fields, its projects, and every list, lookup and family-wide
// GET below it; and the root `organizations` and `organization` fields.
import type { OrganizationRecord, ProjectRecord } from '../loaders/tagged-records.ts';
import { BatchExportConnection } from './batch-export.ts';
import { builder } from './builder.ts';
import { resolveRestConnection } from './connection.ts';
import { DomainConnection } from './domain.ts';
import { InviteConnection } from './invite.ts';
import { MemberConnection } from './member.ts';
import { registerNode, retrieveCall } from './node-registry.ts';
import { nodeType } from './node-type.ts';
import {
  PipelineDestinationConnection,
  PipelineFrontendAppConnection,
  PipelineImportAppConnection,
  pipelineFamilyGetField,
} from './pipeline/families.ts';
import {
  BatchExportRef,
  DomainRef,
  InviteRef,
  MemberRef,
  OrganizationRef,
  PipelineDestinationRef,
  PipelineFrontendAppRef,
  PipelineImportAppRef,
  ProjectRef,
} from './refs.ts';
import { restFields } from './rest-fields.ts';
import { connectionTypes, restConnectionField, restLookupField } from './rest-list-fields.ts';
import { requiresScope } from './scopes.ts';

const READ = requiresScope('organization:read');
const MEMBERS_READ = requiresScope('organization_member:read');
const BATCH_EXPORTS_READ = requiresScope('batch_export:read');
const PLUGINS_READ = requiresScope('plugin:read');

// The family-wide GETs of destinations and frontend apps, passed through as the REST API sends them.
const ACTIVITY = 'Recent activity of the family (as the REST API sends it).';
const UNSUBSCRIBE_CONFIGS = 'Export unsubscribe configurations (as the REST API sends them).';
const REPOSITORY = 'Plugins available from the repository (as the REST API sends them).';
const UNUSED = 'Plugins installed but not used (as the REST API sends them).';

/** The organization's REST id: the parent of every list below it. */
const orgId = (org: OrganizationRecord) => org.id;

nodeType(OrganizationRef, {
  description: `An organization the caller's key can see. ${READ}`,
  idParts: (org) => [org.id],
  fields: (t) => ({
    databaseId: t.field({ type: 'UUID', nullable: false, description: 'The REST `id`.', resolve: (org) => org.id }),
    ...restFields<OrganizationRecord>(t, {
      name: ['name', 'String', 'Display name.'],
      slug: ['slug', 'String', 'URL-safe unique name, derived from the name.'],
      createdAt: ['created_at', 'DateTime', 'When the organization was created.'],
      updatedAt: ['updated_at', 'DateTime', 'When the organization was last changed.'],
      membershipLevel: ['membership_level', 'Int', "The caller's level in this organization: 1 member, 8 admin, 15 owner."],
      pluginsAccessLevel: [
        'plugins_access_level',
        'Int',
        'What the organization may do with plugins (0 none, 3 config, 6 install, 9 root).',
      ],
      teams: ['teams', ['JSON'], 'The projects (teams) of the organization, as the REST API sends them.'],
      availableProductFeatures: [
        'available_product_features',
        ['JSON'],
        'Product features available on the plan, as the REST API sends them.',
      ],
      isMemberJoinEmailEnabled: ['is_member_join_email_enabled', 'Boolean', 'Whether members get an e-mail when someone joins.'],
      metadata: ['metadata', 'JSON', 'Free-form metadata (a string in the REST docs; the live service sends an object).'],
      customerId: ['customer_id', 'String', 'Billing customer id.'],
      enforce2fa: ['enforce_2fa', 'Boolean', 'Whether members must use two-factor authentication.'],
    }),
    memberCount: t.int({ description: 'How many members the organization has.', resolve: memberCountOf }),
    projects: t.field({
      type: [ProjectRef],
      nullable: false,
      description: "The organization's projects, one per distinct project id of its `teams` (no extra upstream call).",
      resolve: (org) => projectsOf(org),
    }),
    batchExports: restConnectionField(t, BatchExportConnection, {
      type: BatchExportRef,
      description: `The organization's batch exports. ${BATCH_EXPORTS_READ}`,
      parentId: orgId,
      loader: (context) => context.loaders.batchExports,
    }),
    batchExport: restLookupField(t, 'UUID', {
      type: BatchExportRef,
      description: `One of the organization's batch exports by its REST id, or null when there is none. ${BATCH_EXPORTS_READ}`,
      parentId: orgId,
      loader: (context) => context.loaders.batchExports,
    }),
    domains: restConnectionField(t, DomainConnection, {
      type: DomainRef,
      description: `The organization's domains. ${READ}`,
      parentId: orgId,
      loader: (context) => context.loaders.domains,
    }),
    domain: restLookupField(t, 'UUID', {
      type: DomainRef,
      description: `One of the organization's domains by its REST id, or null when there is none. ${READ}`,
      parentId: orgId,
      loader: (context) => context.loaders.domains,
    }),
    // Invites and members have no REST retrieve: `node(id:)` finds one by a bounded scan of the list.
    invites: restConnectionField(t, InviteConnection, {
      type: InviteRef,
      description: `The organization's pending invitations. ${MEMBERS_READ}`,
      parentId: orgId,
      loader: (context) => context.loaders.invites,
    }),
    members: restConnectionField(t, MemberConnection, {
      type: MemberRef,
      description: `The organization's members. ${MEMBERS_READ}`,
      parentId: orgId,
      loader: (context) => context.loaders.members,
    }),
    pipelineDestinations: restConnectionField(t, PipelineDestinationConnection, {
      type: PipelineDestinationRef,
      description: `The organization's pipeline destinations. ${PLUGINS_READ}`,
      parentId: orgId,
      loader: (context) => context.loaders.pipeline.pipeline_destinations,
    }),
    pipelineDestination: restLookupField(t, 'Int', {
      type: PipelineDestinationRef,
      description: `One of the organization's pipeline destinations by its REST id, or null when there is none. ${PLUGINS_READ}`,
      parentId: orgId,
      loader: (context) => context.loaders.pipeline.pipeline_destinations,
    }),
    pipelineDestinationsActivity: pipelineFamilyGetField(t, 'pipeline_destinations', ACTIVITY, (rest, id) =>
      rest.getPipelineFamilyActivity('pipeline_destinations', id),
    ),
    pipelineDestinationsExportsUnsubscribeConfigs: pipelineFamilyGetField(t, 'pipeline_destinations', UNSUBSCRIBE_CONFIGS, (rest, id) =>
      rest.getPipelineFamilyExportsUnsubscribeConfigs('pipeline_destinations', id),
    ),
    pipelineDestinationsRepository: pipelineFamilyGetField(t, 'pipeline_destinations', REPOSITORY, (rest, id) =>
      rest.getPipelineFamilyRepository('pipeline_destinations', id),
    ),
    pipelineDestinationsUnused: pipelineFamilyGetField(t, 'pipeline_destinations', UNUSED, (rest, id) =>
      rest.getPipelineFamilyUnused('pipeline_destinations', id),
    ),
    pipelineFrontendApps: restConnectionField(t, PipelineFrontendAppConnection, {
      type: PipelineFrontendAppRef,
      description: `The organization's pipeline frontend apps. ${PLUGINS_READ}`,
      parentId: orgId,
      loader: (context) => context.loaders.pipeline.pipeline_frontend_apps,
    }),
    pipelineFrontendApp: restLookupField(t, 'Int', {
      type: PipelineFrontendAppRef,
      description: `One of the organization's pipeline frontend apps by its REST id, or null when there is none. ${PLUGINS_READ}`,
      parentId: orgId,
      loader: (context) => context.loaders.pipeline.pipeline_frontend_apps,
    }),
    pipelineFrontendAppsActivity: pipelineFamilyGetField(t, 'pipeline_frontend_apps', ACTIVITY, (rest, id) =>
      rest.getPipelineFamilyActivity('pipeline_frontend_apps', id),
    ),
    pipelineFrontendAppsExportsUnsubscribeConfigs: pipelineFamilyGetField(t, 'pipeline_frontend_apps', UNSUBSCRIBE_CONFIGS, (rest, id) =>
      rest.getPipelineFamilyExportsUnsubscribeConfigs('pipeline_frontend_apps', id),
    ),
    pipelineFrontendAppsRepository: pipelineFamilyGetField(t, 'pipeline_frontend_apps', REPOSITORY, (rest, id) =>
      rest.getPipelineFamilyRepository('pipeline_frontend_apps', id),
    ),
    pipelineFrontendAppsUnused: pipelineFamilyGetField(t, 'pipeline_frontend_apps', UNUSED, (rest, id) =>
      rest.getPipelineFamilyUnused('pipeline_frontend_apps', id),
    ),
    pipelineImportApps: restConnectionField(t, PipelineImportAppConnection, {
      type: PipelineImportAppRef,
      description: `The organization's pipeline import apps. ${PLUGINS_READ}`,
      parentId: orgId,
      loader: (context) => context.loaders.pipeline.pipeline_import_apps,
    }),
    pipelineImportApp: restLookupField(t, 'Int', {
      type: PipelineImportAppRef,
      description: `One of the organization's pipeline import apps by its REST id, or null when there is none. ${PLUGINS_READ}`,
      parentId: orgId,
      loader: (context) => context.loaders.pipeline.pipeline_import_apps,
    }),
  }),
});

/**
 * The seed types `member_count` as a string (`"3"`); the live service may send a number. Served as
 * Int: a string that is not a whole number becomes NaN, which the Int serializer refuses, so the
 * field fails alone (UPSTREAM_ERROR).
 */
function memberCountOf(org: OrganizationRecord): number | null {
  const count = org.member_count;
  if (typeof count !== 'string') return count;
  return count === '' ? Number.NaN : Number(count);
}

/** One project per distinct project id (falling back to the team id); named after its first team. */
function projectsOf(org: OrganizationRecord): ProjectRecord[] {
  const projects = new Map<string, ProjectRecord>();
  for (const team of org.teams ?? []) {
    const projectId = String(team.project_id ?? team.id);
    if (!projects.has(projectId)) projects.set(projectId, { $type: 'Project', projectId, name: team.name ?? null });
  }
  return [...projects.values()];
}

registerNode('Organization', {
  shape: ['uuid'],
  call: ([id]) => retrieveCall('Organization', id as string),
  load: ([id], context) => context.loaders.organizations.byId('', id as string),
});

const OrganizationConnection = connectionTypes(OrganizationRef, {
  connection: 'OrganizationConnection',
  edge: 'OrganizationEdge',
  what: 'organizations',
});

builder.queryFields((t) => ({
  organizations: t.connection(
    {
      type: OrganizationRef,
      nullable: false,
      description: `The organizations the caller's key belongs to. ${READ}`,
      extensions: { fanOut: 'connection' },
      resolve: (_root, args, context, info) =>
        resolveRestConnection('organizations', args, info, {
          page: (limit, offset) => context.loaders.organizations.page('', limit, offset),
          count: () => context.loaders.organizations.count(''),
        }),
    },
    OrganizationConnection,
  ),
  organization: t.field({
    type: OrganizationRef,
    description: `The organization with this REST id, or null when the upstream has none the key can see. ${READ}`,
    extensions: { fanOut: 'call' },
    args: { databaseId: t.arg({ type: 'UUID', required: true, description: 'The REST `id`.' }) },
    resolve: (_root, { databaseId }, context) => context.loaders.organizations.byId('', databaseId),
  }),
}));
