// The reference API's generatedData option: organizations of the demo user at given sizes (the
// benchmarks' dataset, bench/lib/dataset.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATASET_SIZES } from '../../bench/lib/dataset.ts';
import { type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { call } from './support.ts';

let api: ReferenceApi;
beforeAll(async () => {
  api = await startReferenceApi({ demoData: false, generatedData: DATASET_SIZES });
});
afterAll(() => api.close());

describe('generatedData', () => {
  it('gives the demo key exactly the generated organizations, each list at its size', async () => {
    const orgs = await call(api, 'GET', '/api/organizations/');
    expect(orgs.body.count).toBe(DATASET_SIZES.organizations);
    const lists = {
      batch_exports: DATASET_SIZES.batchExports,
      domains: DATASET_SIZES.domains,
      members: DATASET_SIZES.members,
      invites: DATASET_SIZES.invites,
      pipeline_destinations: DATASET_SIZES.pipelineDestinations,
      pipeline_frontend_apps: DATASET_SIZES.pipelineFrontendApps,
      pipeline_import_apps: DATASET_SIZES.pipelineImportApps,
    };
    for (const org of orgs.body.results) {
      expect(org.teams).toHaveLength(DATASET_SIZES.projectsPerOrganization);
      for (const [list, size] of Object.entries(lists)) {
        const page = await call(api, 'GET', `/api/organizations/${org.id}/${list}/`);
        expect(page.status, list).toBe(200);
        expect(page.body.count, list).toBe(size);
      }
      for (const team of org.teams) {
        const surveys = await call(api, 'GET', `/api/projects/${team.id}/surveys/`);
        expect(surveys.body.count).toBe(DATASET_SIZES.surveysPerProject);
      }
    }
  });

  it('is the same on every start', async () => {
    const again = await startReferenceApi({ demoData: false, generatedData: DATASET_SIZES });
    try {
      const first = (await call(api, 'GET', '/api/organizations/')).body;
      expect((await call(again, 'GET', '/api/organizations/')).body).toEqual(first);
      const org = first.results[0].id;
      const exports = (await call(api, 'GET', `/api/organizations/${org}/batch_exports/`)).body;
      expect((await call(again, 'GET', `/api/organizations/${org}/batch_exports/`)).body).toEqual(exports);
    } finally {
      await again.close();
    }
  });

  it('comes after the demo data when both are asked for', async () => {
    const both = await startReferenceApi({ generatedData: { ...DATASET_SIZES, organizations: 1 } });
    try {
      const names = (await call(both, 'GET', '/api/organizations/')).body.results.map((org: { name: string }) => org.name);
      expect(names).toEqual(['Hedgehog Analytics', 'Prickly Labs', 'Organization 4']);
    } finally {
      await both.close();
    }
  });
});
