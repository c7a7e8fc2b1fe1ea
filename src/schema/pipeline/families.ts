// The three pipeline families (seed 4.6): a node type each, implementing PipelineItem, with the seed's
// per-item GETs as fields, and its Connection and Edge types. Organization's lists, lookups and
// family-wide GETs of them are declared with Organization's other fields (src/schema/organization.ts).
import type { ObjectRef } from '@pothos/core';
import type { PipelineItemRecord } from '../../loaders/tagged-records.ts';
import type { RestClient } from '../../upstream/client.ts';
import type { PipelineFamily } from '../../wire/rest-types.ts';
import type { BuilderTypes } from '../builder.ts';
import { registerNode, retrieveCall } from '../node-registry.ts';
import { nodeType } from '../node-type.ts';
import { PipelineDestinationRef, PipelineFrontendAppRef, PipelineImportAppRef, PipelineItemRef } from '../refs.ts';
import { connectionTypes } from '../rest-list-fields.ts';
import { requiresScope } from '../scopes.ts';

const READ = requiresScope('plugin:read');

/** The live service wraps check_for_updates' record as `{"plugin": record}`; the seed sends the record. */
function unwrapPlugin(body: unknown): PipelineItemRecord | null {
  if (body && typeof body === 'object' && 'plugin' in body) return (body as { plugin: PipelineItemRecord }).plugin;
  return (body as PipelineItemRecord | null) ?? null;
}

interface FamilyOptions {
  family: PipelineFamily;
  /** For descriptions, e.g. `destination`. */
  what: string;
  /** Destinations and frontend apps have a `source`; import apps do not. */
  hasSource: boolean;
}

function pipelineItemType(ref: ObjectRef<BuilderTypes, PipelineItemRecord>, { family, what, hasSource }: FamilyOptions): void {
  nodeType(ref, {
    description: `A pipeline ${what}. ${READ}`,
    interfaces: [PipelineItemRef],
    idParts: (item) => [item.$org, item.id],
    fields: (t) => ({
      checkForUpdates: t.field({
        type: ref,
        description: `The item as the upstream sees it after checking for a newer version (\`latestTag\`). ${READ}`,
        extensions: { fanOut: 'call' },
        resolve: async (item, _args, context) => {
          const body = await context.loaders.once(`check:${family}:${item.$org}:${item.id}`, (rest) =>
            rest.checkPipelineItemForUpdates(family, item.$org, item.id),
          );
          const record = unwrapPlugin(body);
          return record && Object.assign(record, { $type: item.$type, $org: item.$org, $family: family });
        },
      }),
      ...(hasSource && {
        source: t.field({
          type: 'JSON',
          description: `The plugin's source, as the REST API sends it. ${READ}`,
          extensions: { fanOut: 'call' },
          resolve: (item, _args, context) =>
            context.loaders.once(`source:${family}:${item.$org}:${item.id}`, (rest) =>
              rest.getPipelineItemSource(family, item.$org, item.id),
            ),
        }),
      }),
    }),
  });

  registerNode(ref.name, {
    shape: ['uuid', 'int'],
    call: ([orgId, id]) => retrieveCall(ref.name, orgId as string, id as string),
    load: ([orgId, id], context) => context.loaders.pipeline[family].byId(orgId as string, id as string),
  });
}

pipelineItemType(PipelineDestinationRef, { family: 'pipeline_destinations', what: 'destination', hasSource: true });
pipelineItemType(PipelineFrontendAppRef, { family: 'pipeline_frontend_apps', what: 'frontend app', hasSource: true });
pipelineItemType(PipelineImportAppRef, { family: 'pipeline_import_apps', what: 'import app', hasSource: false });

export const PipelineDestinationConnection = connectionTypes(PipelineDestinationRef, {
  connection: 'PipelineDestinationConnection',
  edge: 'PipelineDestinationEdge',
  what: 'pipeline destinations',
});
export const PipelineFrontendAppConnection = connectionTypes(PipelineFrontendAppRef, {
  connection: 'PipelineFrontendAppConnection',
  edge: 'PipelineFrontendAppEdge',
  what: 'pipeline frontend apps',
});
export const PipelineImportAppConnection = connectionTypes(PipelineImportAppRef, {
  connection: 'PipelineImportAppConnection',
  edge: 'PipelineImportAppEdge',
  what: 'pipeline import apps',
});

/**
 * The family-wide GETs of destinations and frontend apps (seed 4.6: activity,
 * exports_unsubscribe_configs, repository, unused) as JSON fields of the organization, passed through
 * as the REST API sends them and made once per request; its type file places them under their names.
 */
export function pipelineFamilyGetFields<Org extends { id: string }>(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Org>,
  family: PipelineFamily,
) {
  const get = (description: string, call: (rest: RestClient, orgId: string) => Promise<unknown>) =>
    t.field({
      type: 'JSON',
      description: `${description} ${READ}`,
      extensions: { fanOut: 'call' },
      resolve: (org, _args, context, info) => context.loaders.once(`${info.fieldName}:${org.id}`, (rest) => call(rest, org.id)),
    });
  return {
    activity: get('Recent activity of the family (as the REST API sends it).', (rest, orgId) =>
      rest.getPipelineFamilyActivity(family, orgId),
    ),
    exportsUnsubscribeConfigs: get('Export unsubscribe configurations (as the REST API sends them).', (rest, orgId) =>
      rest.getPipelineFamilyExportsUnsubscribeConfigs(family, orgId),
    ),
    repository: get('Plugins available from the repository (as the REST API sends them).', (rest, orgId) =>
      rest.getPipelineFamilyRepository(family, orgId),
    ),
    unused: get('Plugins installed but not used (as the REST API sends them).', (rest, orgId) =>
      rest.getPipelineFamilyUnused(family, orgId),
    ),
  };
}
