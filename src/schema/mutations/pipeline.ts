// The pipeline families' mutations, generated from the families table (seed 4.6): create, update and
// delete for all three; updateSource (PATCH update_source) and upgrade (POST upgrade) for
// destinations and frontend apps. The live update_source answers source files, not the item: the
// item is then read again.
import type { PipelineItemRecord } from '../../loaders/tagged-records.ts';
import type { PipelineItem } from '../../wire/rest-types.ts';
import { FAMILIES } from '../pipeline/families.ts';
import type { InputSpec } from './input.ts';
import { actionMutation, createMutation, deleteMutation, type RecordKind, updateMutation } from './record-mutations.ts';

/** The write fields of seed 4.6 (create, update, update_source and upgrade all take them). */
const FIELDS: InputSpec = {
  plugin_type: [
    'String',
    'How the plugin is installed: `local`, `custom`, `repository`, `source` or `inline` (the minimal create example gives only this).',
  ],
  name: ['String', 'Name.'],
  description: ['String', 'What the item does.'],
  icon: ['String', 'Icon URL.'],
  config_schema: ['JSON', 'The settings the plugin takes.'],
  tag: ['String', 'The version tag to install.'],
  is_global: ['Boolean', 'Whether the item is available to every organization.'],
  capabilities: ['JSON', 'What the plugin can do.'],
  metrics: ['JSON', 'Metrics the plugin reports.'],
  public_jobs: ['JSON', 'Jobs the plugin exposes.'],
};

for (const { family, typeName, ref, what, hasExtras } of FAMILIES) {
  const kind: RecordKind<PipelineItem, PipelineItemRecord> = {
    typeName,
    ref,
    field: typeName.charAt(0).toLowerCase() + typeName.slice(1),
    noun: `pipeline ${what}`,
    scope: 'plugin:write',
    parent: { typeName: 'Organization', inputField: 'organizationId', noun: 'organization' },
    loader: (context) => context.loaders.pipeline[family],
    retrieve: (rest, at) => rest.getPipelineItem(family, at.parentId, Number(at.pathId)),
  };

  createMutation(kind, {
    description: `Installs a pipeline ${what} in an organization.`,
    fields: FIELDS,
    send: (rest, orgId, body) => rest.createPipelineItem(family, orgId, body),
  });

  updateMutation(kind, {
    description: `Changes a pipeline ${what}.`,
    fields: FIELDS,
    send: (rest, at, body) => rest.updatePipelineItem(family, at.parentId, Number(at.pathId), body),
  });

  deleteMutation(kind, {
    description: `Uninstalls a pipeline ${what}.`,
    send: (rest, at) => rest.deletePipelineItem(family, at.parentId, Number(at.pathId)),
  });

  if (hasExtras) {
    actionMutation(kind, {
      name: `update${typeName}Source`,
      description: `Updates the source of a pipeline ${what} (REST \`update_source\`, PATCH: only the fields given are sent).`,
      fields: FIELDS,
      send: (rest, at, body) => rest.updatePipelineItemSource(family, at.parentId, Number(at.pathId), body ?? {}),
    });

    actionMutation(kind, {
      name: `upgrade${typeName}`,
      description: `Upgrades a pipeline ${what} to its latest version (REST \`upgrade\`), applying the fields given.`,
      fields: FIELDS,
      send: (rest, at, body) => rest.upgradePipelineItem(family, at.parentId, Number(at.pathId), body ?? {}),
    });
  }
}
