// The pipeline families' mutations, from one table: create/update/delete for all three, and
// update<Type>Source / upgrade<Type> for destinations and frontend apps. The live update_source
// answers source files, not the item: the gateway reads the item again.
import { expect } from 'vitest';
import type { ReferenceApi } from '../../../src/reference-api/index.ts';
import type { PipelineFamily } from '../../../src/wire/rest-types.ts';
import type { Harness } from '../../support/harness.ts';
import { UNKNOWN_UUID } from '../../support/ids.ts';
import { deleteCase, describeMutations, freshOrg, globalId, type MutationCase, orgId } from './support.ts';

const FAMILIES: { family: PipelineFamily; type: string; field: string; other: string; hasExtras: boolean }[] = [
  {
    family: 'pipeline_destinations',
    type: 'PipelineDestination',
    field: 'pipelineDestination',
    other: 'PipelineFrontendApp',
    hasExtras: true,
  },
  {
    family: 'pipeline_frontend_apps',
    type: 'PipelineFrontendApp',
    field: 'pipelineFrontendApp',
    other: 'PipelineImportApp',
    hasExtras: true,
  },
  { family: 'pipeline_import_apps', type: 'PipelineImportApp', field: 'pipelineImportApp', other: 'PipelineDestination', hasExtras: false },
];

const SCOPE = 'plugin:write';
const UNKNOWN_ITEM = 987654;

function familyCases({ family, type, field, other, hasExtras }: (typeof FAMILIES)[number]): MutationCase[] {
  const selection = `${field} { id databaseId pluginType name description icon tag latestTag configSchema }`;
  const freshItem = (api: ReferenceApi) => {
    const org = freshOrg(api);
    const record = api.store.addPipelineItem(org.id, family, { plugin_type: 'local', name: 'Scratch item', tag: 'v1', latest_tag: 'v2' });
    return { org, record, id: globalId(type, org.id, record.id), path: `/api/organizations/${org.id}/${family}/${record.id}/` };
  };
  const missing = (h: Harness) => ({ id: globalId(type, freshOrg(h.api).id, UNKNOWN_ITEM) });
  // Another family's id is another type: rejected before any call.
  const wrongType = (h: Harness) => ({ id: globalId(other, freshOrg(h.api).id, 1) });
  const badPluginType = (h: Harness) => ({
    input: { id: freshItem(h.api).id, pluginType: 'weird' },
    field: 'pluginType',
    code: 'invalid_choice',
  });

  const cases: MutationCase[] = [
    {
      name: `create${type}`,
      selection,
      scope: SCOPE,
      arrange: (h) => {
        const org = freshOrg(h.api);
        const configSchema = [{ key: 'url', type: 'string' }];
        return {
          input: { organizationId: orgId(org), pluginType: 'custom', name: 'Made here', configSchema, isGlobal: false },
          method: 'POST',
          path: `/api/organizations/${org.id}/${family}/`,
          body: { plugin_type: 'custom', name: 'Made here', config_schema: configSchema, is_global: false },
          check: (payload) => {
            const item = payload[field];
            expect(item).toMatchObject({ pluginType: 'custom', name: 'Made here', configSchema });
            expect(item.id).toBe(globalId(type, org.id, item.databaseId));
            expect(h.api.store.pipelineItems.get(item.databaseId)?.family).toBe(family);
          },
        };
      },
      invalid: (h) => ({
        input: { organizationId: orgId(freshOrg(h.api)), pluginType: 'weird' },
        field: 'pluginType',
        code: 'invalid_choice',
      }),
      missing: () => ({ organizationId: globalId('Organization', UNKNOWN_UUID), pluginType: 'local' }),
      wrongType: (h) => ({ organizationId: freshItem(h.api).id, pluginType: 'local' }),
    },
    {
      name: `update${type}`,
      selection,
      scope: SCOPE,
      arrange: (h) => {
        const { record, id, path } = freshItem(h.api);
        return {
          input: { id, name: 'Renamed item', description: null },
          method: 'PATCH',
          path,
          body: { name: 'Renamed item', description: null },
          check: (payload) => {
            expect(payload[field]).toMatchObject({ id, name: 'Renamed item', description: null });
            expect(record.name).toBe('Renamed item');
          },
        };
      },
      invalid: (h) => ({ input: { id: freshItem(h.api).id, pluginType: null }, field: 'pluginType', code: 'null' }),
      missing,
      wrongType,
      patch: { value: ['tag', 'v3', 'tag'], nulled: ['icon', 'icon'] },
    },
    deleteCase(
      `delete${type}`,
      SCOPE,
      (h) => {
        const { record, id, path } = freshItem(h.api);
        return { id, path, exists: () => h.api.store.pipelineItems.has(record.id) };
      },
      { missing, wrongType },
    ),
  ];
  if (!hasExtras) return cases;

  cases.push(
    {
      name: `update${type}Source`,
      selection,
      scope: SCOPE,
      arrange: (h, live) => {
        const { record, id, path } = freshItem(h.api);
        return {
          input: { id, name: 'From source' },
          method: 'PATCH',
          path: `${path}update_source/`,
          body: { name: 'From source' },
          check: (payload) => {
            const routes = h.api.requests.map((r) => `${r.method} ${r.path}`);
            if (live) {
              // The live service takes the body as source files and answers them: the item is read again.
              expect(record.source).toEqual({ name: 'From source' });
              expect(payload[field]).toMatchObject({ id, name: 'Scratch item' });
              expect(routes).toEqual([`PATCH ${path}update_source/`, `GET ${path}`]);
            } else {
              expect(payload[field]).toMatchObject({ id, name: 'From source' });
              expect(routes).toEqual([`PATCH ${path}update_source/`]);
            }
          },
        };
      },
      invalid: (h, live) =>
        live
          ? { input: { id: freshItem(h.api).id, configSchema: { not: 'a file' } }, field: 'configSchema', code: 'invalid_input' }
          : badPluginType(h),
      missing,
      wrongType,
      patch: { value: ['name', 'x', 'name'], nulled: ['description', 'description'] },
    },
    {
      name: `upgrade${type}`,
      selection,
      scope: SCOPE,
      arrange: (h) => {
        const { record, id, path } = freshItem(h.api);
        return {
          input: { id },
          method: 'POST',
          path: `${path}upgrade/`,
          body: {},
          check: (payload) => {
            expect(payload[field]).toMatchObject({ id, tag: 'v2', latestTag: 'v2' });
            expect(record.tag).toBe('v2');
            expect(h.api.requests).toHaveLength(1);
          },
        };
      },
      invalid: badPluginType,
      missing,
      wrongType,
    },
  );
  return cases;
}

const cases = FAMILIES.flatMap(familyCases);

describeMutations(cases);
