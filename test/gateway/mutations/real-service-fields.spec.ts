// The real service's writable fields (contract: The real service) reach the REST body exactly as
// given, PATCH semantics included, and read back from the reference API's answer as the payload.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { freshOrg, globalId, mutate, orgId } from './support.ts';

const ROLE = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

describe('writable fields of the real service', () => {
  const harness = useHarness();

  it('updateOrganization sends every organization setting and reads them back', async () => {
    const h = harness();
    const org = freshOrg(h.api);
    const input = {
      logoMediaId: ROLE,
      defaultRoleId: ROLE,
      enforceVerifiedDomains: true,
      membersCanInvite: false,
      membersCanCreateProjects: false,
      membersCanUsePersonalApiKeys: false,
      membersCanSeeOrgMembers: false,
      allowPubliclySharedResources: false,
      readOnlyMcpAccess: true,
      isAiDataProcessingApproved: true,
      isAiTrainingOptedIn: true,
      defaultAnonymizeIps: true,
    };
    const run = await mutate(
      h,
      'updateOrganization',
      { id: orgId(org), ...input },
      { selection: `organization { ${Object.keys(input).join(' ')} }` },
    );
    expect(run.writes.map((w) => [w.method, w.path, w.body])).toEqual([
      [
        'PATCH',
        `/api/organizations/${org.id}/`,
        {
          logo_media_id: ROLE,
          default_role_id: ROLE,
          enforce_verified_domains: true,
          members_can_invite: false,
          members_can_create_projects: false,
          members_can_use_personal_api_keys: false,
          members_can_see_org_members: false,
          allow_publicly_shared_resources: false,
          read_only_mcp_access: true,
          is_ai_data_processing_approved: true,
          is_ai_training_opted_in: true,
          default_anonymize_ips: true,
        },
      ],
    ]);
    expect(run.result).toEqual({ __typename: 'UpdateOrganizationPayload', clientMutationId: null, organization: input });
  });

  it('updateBatchExport sends filters, timezone, offsets and the destination integration; null as null', async () => {
    const h = harness();
    const org = freshOrg(h.api);
    const record = h.api.store.addBatchExport(org.id, { name: 'Weekly', interval: 'week' });
    const filters = [{ key: '$browser', operator: 'exact', type: 'event', value: ['Firefox'] }];
    const run = await mutate(
      h,
      'updateBatchExport',
      {
        id: globalId('BatchExport', org.id, record.id),
        filters,
        timezone: 'Europe/Berlin',
        offsetDay: 2,
        offsetHour: 6,
        destination: { type: 'BigQuery', integration: 9, integrationId: 9 },
      },
      { selection: 'batchExport { filters timezone offsetDay offsetHour destination { type integration integrationId } }' },
    );
    expect(run.writes.map((w) => w.body)).toEqual([
      {
        filters,
        timezone: 'Europe/Berlin',
        offset_day: 2,
        offset_hour: 6,
        destination: { type: 'BigQuery', integration: 9, integration_id: 9 },
      },
    ]);
    expect(run.result.batchExport).toEqual({
      filters,
      timezone: 'Europe/Berlin',
      offsetDay: 2,
      offsetHour: 6,
      destination: { type: 'BigQuery', integration: 9, integrationId: 9 },
    });
    const nulled = await mutate(h, 'updateBatchExport', { id: globalId('BatchExport', org.id, record.id), offsetDay: null });
    expect(nulled.writes.map((w) => w.body)).toEqual([{ offset_day: null }]);
    expect(nulled.result.__typename).toBe('UpdateBatchExportPayload');
  });

  it('createInvite sends privateProjectAccess', async () => {
    const h = harness();
    const org = freshOrg(h.api);
    const access = [{ id: 1, level: 'member' }];
    const run = await mutate(
      h,
      'createInvite',
      { organizationId: orgId(org), targetEmail: 'pp@example.com', privateProjectAccess: access },
      { selection: 'invite { privateProjectAccess }' },
    );
    expect(run.writes.map((w) => w.body)).toEqual([{ target_email: 'pp@example.com', private_project_access: access }]);
    expect(run.result.invite).toEqual({ privateProjectAccess: access });
  });

  it('updateSurvey sends the scheduling and sampling fields and reads them back', async () => {
    const h = harness();
    const org = freshOrg(h.api);
    const team = h.api.store.teamsOf(org.id)[0];
    if (!team) throw new Error('organization without a project');
    const survey = h.api.store.addSurvey(team.id, { name: 'Sampled' });
    const input = {
      schedule: 'recurring',
      linkedInsightId: 5,
      responseSamplingStartDate: '2026-02-01T00:00:00.000000Z',
      responseSamplingIntervalType: 'month',
      responseSamplingInterval: 2,
      responseSamplingLimit: 50,
      responseSamplingDailyLimits: [{ date: '2026-02-01', daily_response_limit: 2 }],
      enablePartialResponses: true,
      enableIframeEmbedding: true,
    };
    const run = await mutate(
      h,
      'updateSurvey',
      { id: globalId('Survey', String(team.project_id), survey.id), ...input },
      { selection: `survey { ${Object.keys(input).join(' ')} }` },
    );
    expect(run.writes.map((w) => w.body)).toEqual([
      {
        schedule: 'recurring',
        linked_insight_id: 5,
        response_sampling_start_date: '2026-02-01T00:00:00.000000Z',
        response_sampling_interval_type: 'month',
        response_sampling_interval: 2,
        response_sampling_limit: 50,
        response_sampling_daily_limits: [{ date: '2026-02-01', daily_response_limit: 2 }],
        enable_partial_responses: true,
        enable_iframe_embedding: true,
      },
    ]);
    expect(run.errors).toBeUndefined();
    expect(run.result).toMatchObject({ __typename: 'UpdateSurveyPayload', survey: input });
  });
});
