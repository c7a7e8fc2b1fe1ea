import type { OrganizationRecord, ProjectRecord } from '../loaders/tagged-records.ts';
import { builder } from './builder.ts';
import { resolveRestConnection } from './connection.ts';
import { connectionType } from './connection-types.ts';
import { requiresScope } from './naming.ts';
import { registerNode, retrieveCall } from './node-registry.ts';
import { nodeType } from './node-type.ts';
import { OrganizationRef, ProjectRef } from './refs.ts';
import { restFields } from './rest-fields.ts';

const READ = requiresScope('organization:read');

nodeType(OrganizationRef, {
  description: `An organization the caller's key can see. ${READ}`,
  idParts: (org) => [org.id],
  fields: (t) => ({
    databaseId: t.field({ type: 'UUID', nullable: false, description: 'The REST `id`.', resolve: (org) => org.id }),
    ...restFields<OrganizationRecord>(t, {
      name: ['String', 'Display name.'],
      slug: ['String', 'URL-safe unique name, derived from the name.'],
      created_at: ['DateTime', 'When the organization was created.'],
      updated_at: ['DateTime', 'When the organization was last changed.'],
      membership_level: ['Int', "The caller's level in this organization: 1 member, 8 admin, 15 owner."],
      plugins_access_level: ['Int', 'What the organization may do with plugins (0 none, 3 config, 6 install, 9 root).'],
      teams: [['JSON'], 'The projects (teams) of the organization, as the REST API sends them.'],
      available_product_features: [['JSON'], 'Product features available on the plan, as the REST API sends them.'],
      is_member_join_email_enabled: ['Boolean', 'Whether members get an e-mail when someone joins.'],
      metadata: ['JSON', 'Free-form metadata (a string in the REST docs; the live service sends an object).'],
      customer_id: ['String', 'Billing customer id.'],
      enforce_2fa: ['Boolean', 'Whether members must use two-factor authentication.'],
      member_count: ['Int', 'How many members the organization has.'],
    }),
    projects: t.field({
      type: [ProjectRef],
      nullable: false,
      description: "The organization's projects, one per distinct project id of its `teams` (no extra upstream call).",
      resolve: (org) => projectsOf(org),
    }),
  }),
});

/** One project per distinct project id (falling back to the team id); named after its first team. */
export function projectsOf(org: OrganizationRecord): ProjectRecord[] {
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

const OrganizationConnection = connectionType(OrganizationRef, 'Organization', 'organizations');

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
