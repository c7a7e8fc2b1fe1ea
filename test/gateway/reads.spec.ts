// Every type and field of the contract's read side, compared field by field with what the REST
// API itself answers for the same key: nothing dropped, renamed wrongly or altered.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql } from '../generated/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { UNKNOWN_UUID } from '../support/ids.ts';
import { restGet } from '../support/rest.ts';
import { asGraphQL, withoutKeys } from '../support/rest-shape.ts';

const EveryOrganizationField = graphql(`
  query EveryOrganizationField($org: UUID!) {
    organization(databaseId: $org) {
      id databaseId name slug createdAt updatedAt membershipLevel pluginsAccessLevel teams
      availableProductFeatures isMemberJoinEmailEnabled metadata customerId enforce2fa memberCount
      logoMediaId defaultRoleId enforceVerifiedDomains membersCanInvite membersCanCreateProjects membersCanUsePersonalApiKeys
      membersCanSeeOrgMembers allowPubliclySharedResources readOnlyMcpAccess isAiDataProcessingApproved isAiTrainingOptedIn
      defaultAnonymizeIps isAiTrainingLocked isAiTrainingCtaShown hasSignedBaa isActive isPendingDeletion
      usesMostSpecificAccessResolution isNotActiveReason
      projects { id databaseId name }
      batchExports(first: 100) {
        nodes {
          id databaseId teamId name model interval paused createdAt lastUpdatedAt lastPausedAt startAt endAt hogqlQuery schema
          filters timezone offsetDay offsetHour
          destination { type config integration integrationId }
          latestRuns {
            id databaseId status recordsCompleted latestError dataIntervalStart dataIntervalEnd cursor createdAt
            finishedAt lastUpdatedAt recordsTotalCount batchExport bytesExported backfill
          }
        }
      }
      domains(first: 100) {
        nodes {
          id databaseId domain isVerified verifiedAt verificationChallenge jitProvisioningEnabled ssoEnforcement scimBaseUrl
        }
      }
      invites(first: 100) {
        nodes { id databaseId targetEmail firstName emailingAttemptMade level isExpired createdAt updatedAt message privateProjectAccess createdBy { ...EveryUserField } }
      }
      members(first: 100) {
        nodes { id databaseId level joinedAt updatedAt is2faEnabled hasSocialAuth lastLogin searchMatchType user { ...EveryUserField } }
      }
      pipelineDestinations(first: 20) { nodes { ...EveryItemField source checkForUpdates { id databaseId latestTag } } }
      pipelineFrontendApps(first: 20) { nodes { ...EveryItemField source checkForUpdates { id databaseId latestTag } } }
      pipelineImportApps(first: 20) { nodes { ...EveryItemField checkForUpdates { id databaseId latestTag } } }
      pipelineDestinationsActivity pipelineDestinationsExportsUnsubscribeConfigs pipelineDestinationsRepository pipelineDestinationsUnused
      pipelineFrontendAppsActivity pipelineFrontendAppsExportsUnsubscribeConfigs pipelineFrontendAppsRepository pipelineFrontendAppsUnused
    }
  }
  fragment EveryUserField on User {
    databaseId uuid distinctId firstName lastName email isEmailVerified hedgehogConfig roleAtOrganization
  }
  fragment EveryItemField on PipelineItem {
    __typename databaseId pluginType name description url icon configSchema tag latestTag isGlobal organizationId
    organizationName capabilities metrics publicJobs hogFunctionMigrationAvailable
  }
`);

const EverySurveyField = graphql(`
  query EverySurveyField($project: String!) {
    project(databaseId: $project) {
      id databaseId name surveysResponsesCount
      surveys(first: 100) {
        totalCount
        nodes {
          id databaseId name description type linkedFlagId targetingFlagId targetingFlagFilters removeTargetingFlag
          questions conditions appearance createdAt startDate endDate archived responsesLimit iterationCount
          iterationFrequencyDays iterationStartDates currentIteration currentIterationStartDate
          schedule linkedInsightId responseSamplingStartDate responseSamplingIntervalType responseSamplingInterval
          responseSamplingLimit responseSamplingDailyLimits enablePartialResponses enableIframeEmbedding featureFlagKeys
          userAccessLevel
          linkedFlag { ...EveryFlagField }
          targetingFlag { ...EveryFlagField }
          internalTargetingFlag { ...EveryFlagField }
          createdBy { databaseId uuid distinctId firstName lastName email isEmailVerified hedgehogConfig roleAtOrganization }
        }
      }
    }
  }
  fragment EveryFlagField on FeatureFlag {
    databaseId teamId name key filters deleted active ensureExperienceContinuity hasEncryptedPayloads version
    evaluationRuntime bucketingIdentifier evaluationTags
  }
`);

const Lookups = graphql(`
  query Lookups($org: UUID!, $export: UUID!, $domain: UUID!, $destination: Int!, $frontendApp: Int!, $importApp: Int!, $missing: UUID!) {
    organization(databaseId: $org) {
      batchExport(databaseId: $export) { databaseId name }
      domain(databaseId: $domain) { databaseId domain }
      pipelineDestination(databaseId: $destination) { databaseId name }
      pipelineFrontendApp(databaseId: $frontendApp) { databaseId name }
      pipelineImportApp(databaseId: $importApp) { databaseId name }
      missingExport: batchExport(databaseId: $missing) { databaseId }
      missingDestination: pipelineDestination(databaseId: 987654) { databaseId }
    }
    missingOrganization: organization(databaseId: $missing) { databaseId }
  }
`);

let h: Harness;
let orgIds: string[];
const rest = <T = any>(path: string) => restGet<T>(h.api.url, path, h.api.keys.demo);
const list = async (path: string) => (await rest<{ results: any[] }>(`${path}?limit=100`)).results;

beforeAll(async () => {
  h = await startHarness();
  orgIds = (await list('/api/organizations/')).map((o) => o.id);
});
afterAll(() => h.close());

describe('every field of every record', () => {
  it('answers each organization the key can see exactly as REST does', async () => {
    expect(orgIds.length).toBeGreaterThanOrEqual(2);
    for (const org of orgIds) {
      const { data, errors } = await h.run(EveryOrganizationField, { org });
      expect(errors).toBeUndefined();
      const o = data.organization;
      if (!o) throw new Error(`organization ${org} missing`);
      const base = `/api/organizations/${org}`;

      expect(
        withoutKeys(o, [
          'id',
          'projects',
          'batchExports',
          'domains',
          'invites',
          'members',
          ...Object.keys(o).filter((k) => k.startsWith('pipeline')),
        ]),
      ).toEqual(withoutKeys(asGraphQL(await rest(`${base}/`)) as object, ['projects']));

      const exports = await list(`${base}/batch_exports/`);
      expect(
        o.batchExports?.nodes.map((e) => withoutKeys({ ...e, latestRuns: e.latestRuns.map((r) => withoutKeys(r, ['id'])) }, ['id'])),
      ).toEqual(asGraphQL(exports));
      expect(o.domains?.nodes.map((d) => withoutKeys(d, ['id']))).toEqual(asGraphQL(await list(`${base}/domains/`)));
      expect(o.invites?.nodes.map((i) => withoutKeys(i, ['id']))).toEqual(asGraphQL(await list(`${base}/invites/`)));
      expect(o.members?.nodes.map((m) => withoutKeys(m, ['id']))).toEqual(asGraphQL(await list(`${base}/members/`)));

      for (const [field, family, typename] of [
        ['pipelineDestinations', 'pipeline_destinations', 'PipelineDestination'],
        ['pipelineFrontendApps', 'pipeline_frontend_apps', 'PipelineFrontendApp'],
        ['pipelineImportApps', 'pipeline_import_apps', 'PipelineImportApp'],
      ] as const) {
        const items = await list(`${base}/${family}/`);
        const nodes = (o[field]?.nodes ?? []) as any[];
        expect(nodes.map((n) => withoutKeys(n, ['__typename', 'source', 'checkForUpdates']))).toEqual(asGraphQL(items));
        for (const [i, node] of nodes.entries()) {
          expect(node.__typename).toBe(typename);
          const checked = await rest(`${base}/${family}/${items[i].id}/check_for_updates/`);
          expect(node.checkForUpdates).toMatchObject({ databaseId: items[i].id, latestTag: checked.latest_tag });
          if (family !== 'pipeline_import_apps') expect(node.source).toEqual(await rest(`${base}/${family}/${items[i].id}/source/`));
        }
        if (family === 'pipeline_import_apps') continue;
        const prefix = field as 'pipelineDestinations' | 'pipelineFrontendApps';
        expect(o[`${prefix}Activity`]).toEqual(await rest(`${base}/${family}/activity/`));
        expect(o[`${prefix}ExportsUnsubscribeConfigs`]).toEqual(await rest(`${base}/${family}/exports_unsubscribe_configs/`));
        expect(o[`${prefix}Repository`]).toEqual(await rest(`${base}/${family}/repository/`));
        expect(o[`${prefix}Unused`]).toEqual(await rest(`${base}/${family}/unused/`));
      }
    }
  });

  it("names each project as the organization's `projects` does, in its order (not after a team)", async () => {
    for (const org of orgIds) {
      const { data } = await h.run(EveryOrganizationField, { org });
      const projects = (await rest(`/api/organizations/${org}/`)).projects as { id: number; name: string }[];
      expect(data.organization?.projects.map((p) => ({ databaseId: p.databaseId, name: p.name }))).toEqual(
        projects.map((p) => ({ databaseId: String(p.id), name: p.name })),
      );
    }
    const { data } = await h.run(EveryOrganizationField, { org: orgIds[0] as string });
    // The demo's first project is "Hedgehog"; its first team is "Hedgehog Web".
    expect(data.organization?.projects[0]?.name).toBe('Hedgehog');
  });

  it("answers each project's surveys and response counts exactly as REST does", async () => {
    const projects = new Set<string>();
    for (const org of orgIds) {
      for (const team of (await rest(`/api/organizations/${org}/`)).teams) projects.add(String(team.project_id ?? team.id));
    }
    let surveysSeen = 0;
    for (const project of projects) {
      const { data, errors } = await h.run(EverySurveyField, { project });
      expect(errors).toBeUndefined();
      const surveys = await list(`/api/projects/${project}/surveys/`);
      surveysSeen += surveys.length;
      // The seed: targeting_flag_id/_filters and remove_targeting_flag come back from create and
      // update only, so a listed survey has them null.
      const writeOnly = { targetingFlagId: null, targetingFlagFilters: null, removeTargetingFlag: null };
      expect(data.project?.surveys?.nodes.map((s) => withoutKeys(s, ['id']))).toEqual(
        surveys.map((survey) => ({ ...writeOnly, ...(asGraphQL(survey) as object) })),
      );
      expect(data.project?.surveysResponsesCount).toEqual(await rest(`/api/projects/${project}/surveys/responses_count/`));
      expect(data.project?.name).toBeNull();
    }
    expect(surveysSeen).toBeGreaterThan(0);
  });

  it('looks records up by REST id, and a missing one is null without an error', async () => {
    const org = orgIds[0] as string;
    const base = `/api/organizations/${org}`;
    const [exportRecord] = await list(`${base}/batch_exports/`);
    const [domain] = await list(`${base}/domains/`);
    const [destination] = await list(`${base}/pipeline_destinations/`);
    const [frontendApp] = await list(`${base}/pipeline_frontend_apps/`);
    const [importApp] = await list(`${base}/pipeline_import_apps/`);
    const missing = UNKNOWN_UUID;
    const { data, errors } = await h.runCounting(Lookups, {
      org,
      export: exportRecord.id,
      domain: domain.id,
      destination: destination.id,
      frontendApp: frontendApp.id,
      importApp: importApp.id,
      missing,
    });
    expect(errors).toBeUndefined();
    expect(data.organization).toEqual({
      batchExport: { databaseId: exportRecord.id, name: exportRecord.name },
      domain: { databaseId: domain.id, domain: domain.domain },
      pipelineDestination: { databaseId: destination.id, name: destination.name },
      pipelineFrontendApp: { databaseId: frontendApp.id, name: frontendApp.name },
      pipelineImportApp: { databaseId: importApp.id, name: importApp.name },
      missingExport: null,
      missingDestination: null,
    });
    expect(data.missingOrganization).toBeNull();
  });

  it('rejects a malformed UUID argument in validation, before any upstream call', async () => {
    const result = await h.runCounting(`{ organization(databaseId: "not-a-uuid") { name } }`);
    expect(result.errors?.[0]?.message).toMatch(/UUID/);
    expect(result.data).toBeUndefined();
    expect(result.calls).toHaveLength(0);
  });

  it('takes only the dashed form of a UUID, braces and strays refused in a literal or a variable, and sends it in lower case', async () => {
    const [org] = orgIds;
    for (const bad of [`${org}}`, `{${org}}`, `urn:uuid:${org}`, (org as string).replaceAll('-', '')]) {
      const literal = await h.runCounting(`{ organization(databaseId: ${JSON.stringify(bad)}) { name } }`);
      expect(literal.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      const variable = await h.runCounting('query ($id: UUID!) { organization(databaseId: $id) { name } }', { id: bad });
      expect(variable.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect([...literal.calls, ...variable.calls]).toHaveLength(0);
    }
    // A literal that is not a string is named as written.
    const number = await h.runCounting('{ organization(databaseId: 123) { name } }');
    expect(number.errors?.[0]?.message).toContain('Value is not a valid UUID: 123');
    const upper = await h.runCounting('query ($id: UUID!) { organization(databaseId: $id) { databaseId } }', {
      id: (org as string).toUpperCase(),
    });
    expect(upper.data).toEqual({ organization: { databaseId: org } });
    expect(upper.routes).toEqual([`GET /api/organizations/${org}/`]);
  });
});
