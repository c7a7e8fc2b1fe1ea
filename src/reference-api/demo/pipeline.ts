// Demo pipeline items, each with a `created` activity entry.
import type { PipelineFamily } from '../../wire/rest-types.ts';
import { DEMO_USER_ID } from '../demo-users.ts';
import type { ReferenceStore } from '../store.ts';
import type { StoredOrganization } from '../stored-records.ts';

const PLUGIN_CAPABILITIES: Record<PipelineFamily, Record<string, unknown>> = {
  pipeline_destinations: { methods: ['composeWebhook'], jobs: [], scheduled_tasks: [] },
  pipeline_frontend_apps: { methods: [], jobs: [], scheduled_tasks: [] },
  pipeline_import_apps: { methods: [], jobs: ['importHistory'], scheduled_tasks: ['runEveryMinute'] },
};

export function addDemoPipelineItem(
  store: ReferenceStore,
  org: StoredOrganization,
  family: PipelineFamily,
  created: string,
  fields: {
    name: string;
    plugin_type: string;
    description: string;
    url?: string | null;
    tag?: string | null;
    latest_tag?: string | null;
    in_use?: boolean;
    hog_function_migration_available?: boolean;
    source?: Record<string, string>;
  },
): void {
  const item = store.addPipelineItem(org.id, family, {
    icon: fields.url ? `${fields.url.replace('github.com', 'raw.githubusercontent.com')}/main/logo.png` : null,
    config_schema: [{ key: 'url', name: 'Target URL', type: 'string', required: true }],
    capabilities: structuredClone(PLUGIN_CAPABILITIES[family]),
    metrics: {},
    public_jobs: family === 'pipeline_import_apps' ? { importHistory: { payload: { dateFrom: { type: 'date', required: true } } } } : {},
    created_at: created,
    in_use: fields.in_use ?? false,
    ...fields,
  });
  store.addActivity({
    organization_id: org.id,
    family,
    item_id: item.id,
    user_id: DEMO_USER_ID,
    activity: 'created',
    detail: { name: item.name, changes: [] },
    created_at: created,
  });
}
