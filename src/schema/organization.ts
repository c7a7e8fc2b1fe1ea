// Organization (seed 2.2, 4.1): its REST fields, its projects, and every list, lookup and family-wide
// GET below it; and the root `organizations` and `organization` fields.
import type { OrganizationRecord, ProjectRecord } from '../loaders/tagged-records.ts';
import type { PipelineFamily } from '../wire/rest-types.ts';
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
  pipelineFamilyGetFields,
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
import { type RestFieldTable, restFields } from './rest-fields.ts';
import { connectionTypes, restListFields } from './rest-list-fields.ts';
import { requiresScope } from './scopes.ts';

const READ = requiresScope('organization:read');

/** Settings that read and write alike: shared with the organization mutations' inputs. */
export const ORGANIZATION_SETTINGS = {
  logoMediaId: ['logo_media_id', 'UUID', "The REST id of the organization's uploaded logo."],
  defaultRoleId: ['default_role_id', 'UUID', 'The REST id of the role new members get.'],
  enforceVerifiedDomains: ['enforce_verified_domains', 'Boolean', 'Whether members must sign in with an e-mail of a verified domain.'],
  membersCanInvite: ['members_can_invite', 'Boolean', 'Whether members (not only admins) may invite people.'],
  membersCanCreateProjects: ['members_can_create_projects', 'Boolean', 'Whether members (not only admins) may create projects.'],
  membersCanUsePersonalApiKeys: ['members_can_use_personal_api_keys', 'Boolean', 'Whether members may create and use personal API keys.'],
  membersCanSeeOrgMembers: ['members_can_see_org_members', 'Boolean', 'Whether members may list the other members.'],
  allowPubliclySharedResources: [
    'allow_publicly_shared_resources',
    'Boolean',
    'Whether dashboards, insights and recordings may be shared publicly.',
  ],
  readOnlyMcpAccess: ['read_only_mcp_access', 'Boolean', 'Whether MCP (AI assistant) access to the organization is read-only.'],
  isAiDataProcessingApproved: ['is_ai_data_processing_approved', 'Boolean', "Whether AI features may process the organization's data."],
  isAiTrainingOptedIn: ['is_ai_training_opted_in', 'Boolean', "Whether the organization's data may be used to train AI models."],
  defaultAnonymizeIps: ['default_anonymize_ips', 'Boolean', 'Whether new projects discard client IP addresses.'],
} satisfies RestFieldTable<OrganizationRecord>;
const MEMBERS_READ = requiresScope('organization_member:read');
const PLUGINS_READ = requiresScope('plugin:read');

nodeType(OrganizationRef, {
  description: `An organization the caller's key can see. ${READ}`,
  idParts: (org) => [org.id],
  fields: (t) => {
    const list = <R>(options: Omit<Parameters<typeof restListFields<OrganizationRecord, R>>[1], 'parentNoun' | 'parentId'>) =>
      restListFields(t, { ...options, parentNoun: 'organization', parentId: (org) => org.id });
    const batchExports = list({
      type: BatchExportRef,
      connection: BatchExportConnection,
      what: 'batch exports',
      scope: requiresScope('batch_export:read'),
      loader: (context) => context.loaders.batchExports,
    });
    const domains = list({
      type: DomainRef,
      connection: DomainConnection,
      what: 'domains',
      scope: READ,
      loader: (context) => context.loaders.domains,
    });
    const invites = list({
      type: InviteRef,
      connection: InviteConnection,
      what: 'pending invitations',
      scope: MEMBERS_READ,
      loader: (context) => context.loaders.invites,
    });
    const members = list({
      type: MemberRef,
      connection: MemberConnection,
      what: 'members',
      scope: MEMBERS_READ,
      loader: (context) => context.loaders.members,
    });
    const pipelineList = (
      type: typeof PipelineDestinationRef,
      connection: typeof PipelineDestinationConnection,
      what: string,
      family: PipelineFamily,
    ) => list({ type, connection, what, scope: PLUGINS_READ, loader: (context) => context.loaders.pipeline[family] });
    const destinations = pipelineList(
      PipelineDestinationRef,
      PipelineDestinationConnection,
      'pipeline destinations',
      'pipeline_destinations',
    );
    const frontendApps = pipelineList(
      PipelineFrontendAppRef,
      PipelineFrontendAppConnection,
      'pipeline frontend apps',
      'pipeline_frontend_apps',
    );
    const importApps = pipelineList(PipelineImportAppRef, PipelineImportAppConnection, 'pipeline import apps', 'pipeline_import_apps');
    const destinationGets = pipelineFamilyGetFields(t, 'pipeline_destinations');
    const frontendAppGets = pipelineFamilyGetFields(t, 'pipeline_frontend_apps');

    return {
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
        ...ORGANIZATION_SETTINGS,
        isAiTrainingLocked: ['is_ai_training_locked', 'Boolean', 'Whether the AI training choice is locked by the plan.'],
        isAiTrainingCtaShown: ['is_ai_training_cta_shown', 'Boolean', 'Whether the AI training prompt is shown.'],
        hasSignedBaa: ['has_signed_baa', 'Boolean', 'Whether the organization has signed a business associate agreement (HIPAA).'],
        isActive: ['is_active', 'Boolean', 'Whether the organization is active; see `isNotActiveReason` when not.'],
        isPendingDeletion: ['is_pending_deletion', 'Boolean', 'Whether the organization is being deleted.'],
        usesMostSpecificAccessResolution: [
          'uses_most_specific_access_resolution',
          'Boolean',
          'Whether access control applies the most specific rule rather than the most permissive one.',
        ],
        isNotActiveReason: ['is_not_active_reason', 'String', 'Why the organization is not active, when it is not.'],
      }),
      memberCount: t.int({ description: 'How many members the organization has.', resolve: memberCountOf }),
      projects: t.field({
        type: [ProjectRef],
        nullable: false,
        description:
          "The organization's projects, one per entry of its REST `projects`, in order and named as there; derived from `teams` (one per distinct project id, named after its first team) only when the answer has no `projects`. No extra upstream call.",
        resolve: (org) => projectsOf(org),
      }),
      batchExports: batchExports.connection(),
      batchExport: batchExports.lookup('UUID'),
      domains: domains.connection(),
      domain: domains.lookup('UUID'),
      // Invites and members have no REST retrieve: `node(id:)` finds one by a bounded scan of the list.
      invites: invites.connection(),
      members: members.connection(),
      pipelineDestinations: destinations.connection(),
      pipelineDestination: destinations.lookup('Int'),
      pipelineDestinationsActivity: destinationGets.activity,
      pipelineDestinationsExportsUnsubscribeConfigs: destinationGets.exportsUnsubscribeConfigs,
      pipelineDestinationsRepository: destinationGets.repository,
      pipelineDestinationsUnused: destinationGets.unused,
      pipelineFrontendApps: frontendApps.connection(),
      pipelineFrontendApp: frontendApps.lookup('Int'),
      pipelineFrontendAppsActivity: frontendAppGets.activity,
      pipelineFrontendAppsExportsUnsubscribeConfigs: frontendAppGets.exportsUnsubscribeConfigs,
      pipelineFrontendAppsRepository: frontendAppGets.repository,
      pipelineFrontendAppsUnused: frontendAppGets.unused,
      pipelineImportApps: importApps.connection(),
      pipelineImportApp: importApps.lookup('Int'),
    };
  },
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

/**
 * One project per entry of `projects`, named as there (else after its first team). Only an answer
 * without `projects` falls back to one project per distinct project id of `teams`.
 */
function projectsOf(org: OrganizationRecord): ProjectRecord[] {
  if (Array.isArray(org.projects)) {
    return org.projects.map((project) => {
      const projectId = String(project.id);
      const name = project.name ?? firstTeamOf(org, projectId)?.name ?? null;
      return { $type: 'Project', projectId, name };
    });
  }
  return projectsFromTeams(org);
}

function firstTeamOf(org: OrganizationRecord, projectId: string) {
  return (org.teams ?? []).find((team) => String(team.project_id ?? team.id) === projectId);
}

/** One project per distinct project id (falling back to the team id); named after its first team. */
function projectsFromTeams(org: OrganizationRecord): ProjectRecord[] {
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
