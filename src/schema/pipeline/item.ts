// The PipelineItem interface: the record shape the three pipeline families share (seed 2.8).
import type { PipelineItemRecord } from '../../loaders/tagged-records.ts';
import { builder } from '../builder.ts';
import { PipelineItemRef } from '../refs.ts';
import { type RestFieldTable, restFields } from '../rest-fields.ts';
import { requiresScope } from '../scopes.ts';

/** Writable fields that read and write alike: shared with the pipeline mutations' inputs. */
export const PIPELINE_ITEM_SETTINGS = {
  name: ['name', 'String', 'Name.'],
  description: ['description', 'String', 'What the item does.'],
  icon: ['icon', 'String', 'Icon URL.'],
  configSchema: ['config_schema', 'JSON', 'The settings the plugin takes.'],
  isGlobal: ['is_global', 'Boolean', 'Whether the item is available to every organization.'],
  capabilities: ['capabilities', 'JSON', 'What the plugin can do.'],
  metrics: ['metrics', 'JSON', 'Metrics the plugin reports.'],
  publicJobs: ['public_jobs', 'JSON', 'Jobs the plugin exposes.'],
} satisfies RestFieldTable<PipelineItemRecord>;

builder.interfaceType(PipelineItemRef, {
  description: `A plugin-style pipeline item: a destination, a frontend app or an import app. ${requiresScope('plugin:read')}`,
  resolveType: (item) => item.$type,
  fields: (t) => ({
    databaseId: t.field({ type: 'Int', nullable: false, description: 'The REST `id`.', resolve: (item) => item.id }),
    ...restFields<PipelineItemRecord>(t, {
      pluginType: ['plugin_type', 'String', 'How the plugin is installed, e.g. `local`, `custom`, `repository`, `source`, `inline`.'],
      ...PIPELINE_ITEM_SETTINGS,
      url: ['url', 'String', 'Where the plugin comes from.'],
      tag: ['tag', 'String', 'The installed version tag.'],
      latestTag: ['latest_tag', 'String', 'The newest version tag known.'],
      organizationId: ['organization_id', 'UUID', 'The REST id of the owning organization.'],
      organizationName: ['organization_name', 'String', 'Name of the owning organization.'],
      hogFunctionMigrationAvailable: [
        'hog_function_migration_available',
        'Boolean',
        'Whether the plugin can be migrated to a Hog function.',
      ],
    }),
  }),
});
