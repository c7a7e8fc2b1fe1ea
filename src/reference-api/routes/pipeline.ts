// The three pipeline families under /api/organizations/:organization_id/ (seed 4.6). They share one
// record shape and CRUD + check_for_updates; destinations and frontend apps also have source,
// update_source, upgrade and the family-level activity / exports_unsubscribe_configs / repository / unused.
// Each stored item belongs to exactly one family (the live service derives it from the plugin's capabilities).
import { PIPELINE_FAMILIES, type PipelineFamily } from '../../wire/rest-types.ts';
import { validationError } from '../api-errors.ts';
import { found, parseIntegerId, requireOrganization } from '../lookup.ts';
import { listReply } from '../pagination.ts';
import { created, noContent, ok, type Route, type RouteContext } from '../router.ts';
import { serializePipelineItem } from '../serializers.ts';
import type { StoredActivity, StoredPipelineItem } from '../stored-records.ts';
import { type Fields, isPlainObject, type Schema, validateFields } from '../validation.ts';

/** The live service's plugin types (the seed shows only `local`). */
const PLUGIN_TYPES = ['local', 'custom', 'repository', 'source', 'inline'];

const ITEM_FIELDS: Schema = {
  plugin_type: { kind: 'choice', choices: PLUGIN_TYPES, required: true },
  name: { kind: 'string', blank: true, nullable: true, maxLength: 200 },
  description: { kind: 'string', blank: true, nullable: true },
  icon: { kind: 'string', blank: true, nullable: true, maxLength: 800 },
  config_schema: { kind: 'json' },
  tag: { kind: 'string', blank: true, nullable: true, maxLength: 200 },
  is_global: { kind: 'boolean' },
  capabilities: { kind: 'json' },
  metrics: { kind: 'json' },
  public_jobs: { kind: 'json' },
};

/** What `repository` lists in the live shape: a stand-in for the live plugin repository. */
const REPOSITORY: Record<PipelineFamily, Record<string, unknown>[]> = {
  pipeline_destinations: [
    {
      name: 'Webhook',
      url: 'https://github.com/PostHog/webhook-plugin',
      description: 'Send events to any HTTP endpoint.',
      icon: 'https://raw.githubusercontent.com/PostHog/webhook-plugin/main/logo.png',
      verified: true,
      maintainer: 'official',
      type: 'data_out',
    },
    {
      name: 'Customer.io',
      url: 'https://github.com/PostHog/customerio-plugin',
      description: 'Send events to Customer.io.',
      icon: 'https://raw.githubusercontent.com/PostHog/customerio-plugin/main/logo.png',
      verified: true,
      maintainer: 'official',
      type: 'data_out',
    },
  ],
  pipeline_frontend_apps: [
    {
      name: 'Notification Bar',
      url: 'https://github.com/PostHog/notification-bar-app',
      description: 'Show a notification bar on your site.',
      icon: 'https://raw.githubusercontent.com/PostHog/notification-bar-app/main/logo.png',
      verified: true,
      maintainer: 'official',
      type: 'site_app',
    },
  ],
  pipeline_import_apps: [],
};

function logActivity(ctx: RouteContext, item: StoredPipelineItem, activity: StoredActivity['activity'], changes: Fields = {}): void {
  ctx.store.addActivity({
    organization_id: item.organization_id,
    family: item.family,
    item_id: item.id,
    user_id: ctx.user.id,
    activity,
    detail: { name: item.name, changes: Object.keys(changes).map((field) => ({ type: 'Plugin', action: 'changed', field })) },
  });
}

function familyRoutes(family: PipelineFamily): Route[] {
  const findItem = (ctx: RouteContext): StoredPipelineItem => {
    const { org } = requireOrganization(ctx);
    const item = ctx.store.pipelineItems.get(parseIntegerId(ctx.params.id ?? '') ?? -1);
    return found(item && item.organization_id === org.id && item.family === family ? item : undefined);
  };
  const serialize = (ctx: RouteContext) => (item: StoredPipelineItem) => serializePipelineItem(ctx.store, item);
  /** Seed shape of the family-level GETs (a 2.8 record without an id in the path): the family's first item. */
  const firstItem = (ctx: RouteContext) => {
    const { org } = requireOrganization(ctx);
    return ok(serializePipelineItem(ctx.store, found(ctx.store.pipelineItemsOf(org.id, family)[0])));
  };

  const list = (ctx: RouteContext) => {
    const { org } = requireOrganization(ctx);
    return listReply(ctx, ctx.store.pipelineItemsOf(org.id, family), serialize(ctx));
  };
  const create = (ctx: RouteContext) => {
    const { org } = requireOrganization(ctx);
    const fields = validateFields(ctx.body, ITEM_FIELDS, false);
    const item = ctx.store.addPipelineItem(org.id, family, { ...fields, plugin_type: String(fields.plugin_type) });
    if (item.plugin_type === 'source')
      item.source = { 'plugin.json': JSON.stringify({ name: item.name, config: item.config_schema }, null, 2) };
    logActivity(ctx, item, 'created');
    return created(serializePipelineItem(ctx.store, item));
  };
  const retrieve = (ctx: RouteContext) => ok(serializePipelineItem(ctx.store, findItem(ctx)));
  const patchItem = (ctx: RouteContext, item: StoredPipelineItem, activity: StoredActivity['activity']) => {
    const fields = validateFields(ctx.body, ITEM_FIELDS, true);
    Object.assign(item, fields);
    logActivity(ctx, item, activity, fields);
    return fields;
  };
  const update = (ctx: RouteContext) => {
    const item = findItem(ctx);
    patchItem(ctx, item, 'updated');
    return ok(serializePipelineItem(ctx.store, item));
  };
  const destroy = (ctx: RouteContext) => {
    const item = findItem(ctx);
    ctx.store.pipelineItems.delete(item.id);
    logActivity(ctx, item, 'deleted');
    return noContent();
  };
  /** Nothing to fetch here: the latest tag is what the store holds (the tag itself when unknown). */
  const checkForUpdates = (ctx: RouteContext) => {
    const item = findItem(ctx);
    item.latest_tag ??= item.tag;
    const record = serializePipelineItem(ctx.store, item);
    return ok(ctx.settings.liveShapes ? { plugin: record } : record);
  };

  const routes: Route[] = [];
  const base = `/api/organizations/:organization_id/${family}`;
  routes.push(
    { path: base, scope: 'plugin', handlers: { GET: list, POST: create } },
    { path: `${base}/:id`, scope: 'plugin', handlers: { GET: retrieve, PATCH: update, DELETE: destroy } },
    { path: `${base}/:id/check_for_updates`, scope: 'plugin', handlers: { GET: checkForUpdates } },
  );
  if (family === 'pipeline_import_apps') return routes; // the seed shows nothing more for import apps

  /** Live shape: the source files; seed shape: the record. */
  const source = (ctx: RouteContext) => {
    const item = findItem(ctx);
    return ok(ctx.settings.liveShapes ? { ...item.source } : serializePipelineItem(ctx.store, item));
  };
  /** Live shape: body and answer are `{file name: content}` (null deletes); seed shape: write fields -> record. */
  const updateSource = (ctx: RouteContext) => {
    const item = findItem(ctx);
    if (!ctx.settings.liveShapes) {
      patchItem(ctx, item, 'source_updated');
      return ok(serializePipelineItem(ctx.store, item));
    }
    const body = ctx.body;
    if (!isPlainObject(body)) throw validationError('invalid_input', 'Expected a dictionary of file names to contents.');
    for (const [file, content] of Object.entries(body)) {
      if (content !== null && typeof content !== 'string') throw validationError('invalid_input', 'File contents must be strings.', file);
    }
    for (const [file, content] of Object.entries(body)) {
      if (content === null) delete item.source[file];
      else item.source[file] = content as string;
    }
    logActivity(ctx, item, 'source_updated', body);
    return ok({ ...item.source });
  };
  /** Applies the body's write fields, then moves `tag` to `latest_tag` unless the body set a tag. */
  const upgrade = (ctx: RouteContext) => {
    const item = findItem(ctx);
    const fields = patchItem(ctx, item, 'upgraded');
    if (fields.tag === undefined && item.latest_tag) item.tag = item.latest_tag;
    return ok(serializePipelineItem(ctx.store, item));
  };
  const activity = (ctx: RouteContext) => {
    if (!ctx.settings.liveShapes) return firstItem(ctx);
    const { org } = requireOrganization(ctx);
    // The live activity page: newest first, with `total_count`.
    const entries = ctx.store.activityOf(org.id, family).reverse();
    const results = entries.map((entry) => {
      const user = entry.user_id === null ? undefined : ctx.store.users.get(entry.user_id);
      return {
        user: user ? { first_name: user.first_name, last_name: user.last_name, email: user.email } : null,
        unread: false,
        is_system: user === undefined,
        activity: entry.activity,
        item_id: String(entry.item_id),
        scope: 'Plugin',
        detail: entry.detail,
        created_at: entry.created_at,
      };
    });
    return ok({ results, next: null, previous: null, total_count: results.length });
  };
  const exportsUnsubscribeConfigs = (ctx: RouteContext) => {
    if (!ctx.settings.liveShapes) return firstItem(ctx);
    const { org } = requireOrganization(ctx);
    const inUse = ctx.store.pipelineItemsOf(org.id, family).filter((item) => item.in_use);
    return ok(inUse.map((item) => ({ plugin_id: item.id, plugin_config_id: item.id, config: {} })));
  };
  const repository = (ctx: RouteContext) => {
    if (!ctx.settings.liveShapes) return firstItem(ctx);
    requireOrganization(ctx);
    return ok(structuredClone(REPOSITORY[family]));
  };
  const unused = (ctx: RouteContext) => {
    if (!ctx.settings.liveShapes) return firstItem(ctx);
    const { org } = requireOrganization(ctx);
    return ok(
      ctx.store
        .pipelineItemsOf(org.id, family)
        .filter((item) => !item.in_use)
        .map((item) => item.id),
    );
  };
  routes.push(
    { path: `${base}/:id/source`, scope: 'plugin', handlers: { GET: source } },
    { path: `${base}/:id/update_source`, scope: 'plugin', handlers: { PATCH: updateSource } },
    { path: `${base}/:id/upgrade`, scope: 'plugin', handlers: { POST: upgrade } },
    { path: `${base}/activity`, scope: 'plugin', handlers: { GET: activity } },
    { path: `${base}/exports_unsubscribe_configs`, scope: 'plugin', handlers: { GET: exportsUnsubscribeConfigs } },
    { path: `${base}/repository`, scope: 'plugin', handlers: { GET: repository } },
    { path: `${base}/unused`, scope: 'plugin', handlers: { GET: unused } },
  );
  return routes;
}

export const pipelineRoutes: Route[] = PIPELINE_FAMILIES.flatMap(familyRoutes);
