// The pipeline families' mutations (seed 4.6), from a table that names each mutation in full:
// create, update and delete for all three; updateSource (PATCH update_source) and upgrade (POST
// upgrade) for destinations and frontend apps. The live update_source answers source files, not the
// item: the item is then read again.
import type { ObjectRef } from '@pothos/core';
import type { PipelineItemRecord } from '../../loaders/tagged-records.ts';
import type { PipelineFamily, PipelineItem } from '../../wire/rest-types.ts';
import type { BuilderTypes } from '../builder.ts';
import { PIPELINE_ITEM_SETTINGS } from '../pipeline/item.ts';
import { PipelineDestinationRef, PipelineFrontendAppRef, PipelineImportAppRef } from '../refs.ts';
import type { RestInputTable } from '../rest-fields.ts';
import type { MutationNames } from './define.ts';
import { actionMutation, createMutation, deleteMutation, type RecordKind, updateMutation } from './record-mutations.ts';

/** The write fields of seed 4.6 (create, update, update_source and upgrade all take them). */
const FIELDS: RestInputTable = {
  pluginType: [
    'plugin_type',
    'String',
    'How the plugin is installed: `local`, `custom`, `repository`, `source` or `inline` (the minimal create example gives only this).',
  ],
  ...PIPELINE_ITEM_SETTINGS,
  tag: ['tag', 'String', 'The version tag to install.'],
};

interface FamilyMutations {
  family: PipelineFamily;
  ref: ObjectRef<BuilderTypes, PipelineItemRecord>;
  /** The payload field that carries the item. */
  field: string;
  /** For descriptions, e.g. `destination`. */
  what: string;
  create: MutationNames;
  update: MutationNames;
  delete: MutationNames;
  /** Destinations and frontend apps only. */
  updateSource?: MutationNames;
  upgrade?: MutationNames;
}

const FAMILIES: FamilyMutations[] = [
  {
    family: 'pipeline_destinations',
    ref: PipelineDestinationRef,
    field: 'pipelineDestination',
    what: 'destination',
    create: [
      'createPipelineDestination',
      'CreatePipelineDestinationInput',
      'CreatePipelineDestinationPayload',
      'CreatePipelineDestinationResult',
    ],
    update: [
      'updatePipelineDestination',
      'UpdatePipelineDestinationInput',
      'UpdatePipelineDestinationPayload',
      'UpdatePipelineDestinationResult',
    ],
    delete: [
      'deletePipelineDestination',
      'DeletePipelineDestinationInput',
      'DeletePipelineDestinationPayload',
      'DeletePipelineDestinationResult',
    ],
    updateSource: [
      'updatePipelineDestinationSource',
      'UpdatePipelineDestinationSourceInput',
      'UpdatePipelineDestinationSourcePayload',
      'UpdatePipelineDestinationSourceResult',
    ],
    upgrade: [
      'upgradePipelineDestination',
      'UpgradePipelineDestinationInput',
      'UpgradePipelineDestinationPayload',
      'UpgradePipelineDestinationResult',
    ],
  },
  {
    family: 'pipeline_frontend_apps',
    ref: PipelineFrontendAppRef,
    field: 'pipelineFrontendApp',
    what: 'frontend app',
    create: [
      'createPipelineFrontendApp',
      'CreatePipelineFrontendAppInput',
      'CreatePipelineFrontendAppPayload',
      'CreatePipelineFrontendAppResult',
    ],
    update: [
      'updatePipelineFrontendApp',
      'UpdatePipelineFrontendAppInput',
      'UpdatePipelineFrontendAppPayload',
      'UpdatePipelineFrontendAppResult',
    ],
    delete: [
      'deletePipelineFrontendApp',
      'DeletePipelineFrontendAppInput',
      'DeletePipelineFrontendAppPayload',
      'DeletePipelineFrontendAppResult',
    ],
    updateSource: [
      'updatePipelineFrontendAppSource',
      'UpdatePipelineFrontendAppSourceInput',
      'UpdatePipelineFrontendAppSourcePayload',
      'UpdatePipelineFrontendAppSourceResult',
    ],
    upgrade: [
      'upgradePipelineFrontendApp',
      'UpgradePipelineFrontendAppInput',
      'UpgradePipelineFrontendAppPayload',
      'UpgradePipelineFrontendAppResult',
    ],
  },
  {
    family: 'pipeline_import_apps',
    ref: PipelineImportAppRef,
    field: 'pipelineImportApp',
    what: 'import app',
    create: ['createPipelineImportApp', 'CreatePipelineImportAppInput', 'CreatePipelineImportAppPayload', 'CreatePipelineImportAppResult'],
    update: ['updatePipelineImportApp', 'UpdatePipelineImportAppInput', 'UpdatePipelineImportAppPayload', 'UpdatePipelineImportAppResult'],
    delete: ['deletePipelineImportApp', 'DeletePipelineImportAppInput', 'DeletePipelineImportAppPayload', 'DeletePipelineImportAppResult'],
  },
];

for (const { family, ref, field, what, ...names } of FAMILIES) {
  const kind: RecordKind<PipelineItem, PipelineItemRecord> = {
    ref,
    field,
    noun: `pipeline ${what}`,
    scope: 'plugin:write',
    parent: { typeName: 'Organization', inputField: 'organizationId', noun: 'organization' },
    loader: (context) => context.loaders.pipeline[family],
    retrieve: (rest, at) => rest.getPipelineItem(family, at.parentId, Number(at.pathId)),
  };

  createMutation(kind, {
    names: names.create,
    description: `Installs a pipeline ${what} in an organization.`,
    fields: FIELDS,
    send: (rest, orgId, body) => rest.createPipelineItem(family, orgId, body),
  });

  updateMutation(kind, {
    names: names.update,
    description: `Changes a pipeline ${what}.`,
    fields: FIELDS,
    send: (rest, at, body) => rest.updatePipelineItem(family, at.parentId, Number(at.pathId), body),
  });

  deleteMutation(kind, {
    names: names.delete,
    description: `Uninstalls a pipeline ${what}.`,
    send: (rest, at) => rest.deletePipelineItem(family, at.parentId, Number(at.pathId)),
  });

  if (names.updateSource) {
    actionMutation(kind, {
      names: names.updateSource,
      description: `Updates the source of a pipeline ${what} (REST \`update_source\`, PATCH: only the fields given are sent).`,
      fields: FIELDS,
      send: (rest, at, body) => rest.updatePipelineItemSource(family, at.parentId, Number(at.pathId), body ?? {}),
    });
  }

  if (names.upgrade) {
    actionMutation(kind, {
      names: names.upgrade,
      description: `Upgrades a pipeline ${what} to its latest version (REST \`upgrade\`), applying the fields given.`,
      fields: FIELDS,
      send: (rest, at, body) => rest.upgradePipelineItem(family, at.parentId, Number(at.pathId), body ?? {}),
    });
  }
}
