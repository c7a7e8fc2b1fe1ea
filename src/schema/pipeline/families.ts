// The three pipeline families: a node type each, their list and lookup on Organization, and the
// seed's extra GET operations as fields.
import type { ObjectRef } from '@pothos/core';
import type { PipelineItemRecord } from '../../loaders/tagged-records.ts';
import type { RestClient } from '../../rest/client.ts';
import type { PipelineFamily } from '../../wire/rest-types.ts';
import { builder } from '../builder.ts';
import { listFields } from '../connection-types.ts';
import { requiresScope } from '../naming.ts';
import { registerNode, retrieveCall } from '../node-registry.ts';
import { nodeType } from '../node-type.ts';
import { OrganizationRef, PipelineDestinationRef, PipelineFrontendAppRef, PipelineImportAppRef, PipelineItemRef } from '../refs.ts';

const READ = requiresScope('plugin:read');

export interface Family {
  family: PipelineFamily;
  typeName: 'PipelineDestination' | 'PipelineFrontendApp' | 'PipelineImportApp';
  ref: ObjectRef<any, PipelineItemRecord>;
  /** Organization field prefix, e.g. `pipelineDestinations`. */
  plural: string;
  what: string;
  /** Destinations and frontend apps also have source/update_source/upgrade and org-level GETs. */
  hasExtras: boolean;
}

export const FAMILIES: Family[] = [
  {
    family: 'pipeline_destinations',
    typeName: 'PipelineDestination',
    ref: PipelineDestinationRef,
    plural: 'pipelineDestinations',
    what: 'destination',
    hasExtras: true,
  },
  {
    family: 'pipeline_frontend_apps',
    typeName: 'PipelineFrontendApp',
    ref: PipelineFrontendAppRef,
    plural: 'pipelineFrontendApps',
    what: 'frontend app',
    hasExtras: true,
  },
  {
    family: 'pipeline_import_apps',
    typeName: 'PipelineImportApp',
    ref: PipelineImportAppRef,
    plural: 'pipelineImportApps',
    what: 'import app',
    hasExtras: false,
  },
];

/** The live service wraps check_for_updates' record as `{"plugin": record}`; the seed sends the record. */
function unwrapPlugin(body: unknown): PipelineItemRecord | null {
  if (body && typeof body === 'object' && 'plugin' in body) return (body as { plugin: PipelineItemRecord }).plugin;
  return (body as PipelineItemRecord | null) ?? null;
}

/** The org-level extra GETs of destinations and frontend apps, by field suffix. */
const ORG_EXTRAS: [
  suffix: string,
  description: string,
  get: (rest: RestClient, family: PipelineFamily, orgId: string) => Promise<unknown>,
][] = [
  ['Activity', 'Recent activity of the family (as the REST API sends it).', (rest, f, org) => rest.getPipelineFamilyActivity(f, org)],
  [
    'ExportsUnsubscribeConfigs',
    'Export unsubscribe configurations (as the REST API sends them).',
    (rest, f, org) => rest.getPipelineFamilyExportsUnsubscribeConfigs(f, org),
  ],
  [
    'Repository',
    'Plugins available from the repository (as the REST API sends them).',
    (rest, f, org) => rest.getPipelineFamilyRepository(f, org),
  ],
  ['Unused', 'Plugins installed but not used (as the REST API sends them).', (rest, f, org) => rest.getPipelineFamilyUnused(f, org)],
];

for (const { family, typeName, ref, plural, what, hasExtras } of FAMILIES) {
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
      ...(hasExtras && {
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

  registerNode(typeName, {
    shape: ['uuid', 'int'],
    call: ([orgId, id]) => retrieveCall(typeName, orgId as string, id as string),
    load: ([orgId, id], context) => context.loaders.pipeline[family].byId(orgId as string, id as string),
  });

  listFields(OrganizationRef, {
    ref,
    typeName,
    listField: plural,
    lookupField: plural.slice(0, -1),
    lookupIdType: 'Int',
    what: `pipeline ${what}s`,
    parentNoun: 'organization',
    scope: READ,
    parentId: (org) => org.id,
    loader: (context) => context.loaders.pipeline[family],
  });

  if (hasExtras) {
    builder.objectFields(OrganizationRef, (t) =>
      Object.fromEntries(
        ORG_EXTRAS.map(([suffix, description, get]) => [
          `${plural}${suffix}`,
          t.field({
            type: 'JSON',
            description: `${description} ${READ}`,
            extensions: { fanOut: 'call' },
            resolve: (org, _args, context) => context.loaders.once(`${suffix}:${family}:${org.id}`, (rest) => get(rest, family, org.id)),
          }),
        ]),
      ),
    );
  }
}
