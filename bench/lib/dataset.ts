// The benchmark's upstream data: 5 organizations, each with 10 batch exports, 5 domains, 10 members,
// 5 invites, 10 pipeline destinations (plus 2 frontend and 2 import apps) and 2 projects of 5
// surveys. Full REST shapes (src/wire/rest-types.ts), generated from a fixed seed.
import type {
  BatchExport,
  Domain,
  FeatureFlag,
  Invite,
  Member,
  Organization,
  PipelineFamily,
  PipelineItem,
  Survey,
  Team,
  User,
} from '../../src/wire/rest-types.ts';
import { type Random, seededRandom, seededUuid } from './prng.ts';

export const DATASET_SIZES = {
  organizations: 5,
  batchExports: 10,
  domains: 5,
  members: 10,
  invites: 5,
  pipelineDestinations: 10,
  pipelineFrontendApps: 2,
  pipelineImportApps: 2,
  projectsPerOrganization: 2,
  surveysPerProject: 5,
} as const;

export type OrgList = 'batch_exports' | 'domains' | 'invites' | 'members' | PipelineFamily;

export interface Dataset {
  organizations: Organization[];
  /** Each organization's lists, by REST path segment. */
  lists: Map<string, Record<OrgList, { id: string | number }[]>>;
  /** Surveys by project id. */
  surveys: Map<string, Survey[]>;
}

const BASE_TIME = Date.UTC(2025, 0, 6, 9, 30, 0);
const INTERVALS = ['hour', 'day', 'week', 'every 5 minutes', 'every 15 minutes'];
const DESTINATION_TYPES = ['S3', 'Snowflake', 'Postgres', 'BigQuery', 'HTTP'];

function iso(random: Random, spanDays = 300): string {
  return new Date(BASE_TIME - Math.floor(random() * spanDays * 86_400_000)).toISOString().replace('Z', '000Z');
}

export function buildDataset(seed = 20251121): Dataset {
  const random = seededRandom(seed);
  const uuid = () => seededUuid(random);
  let nextUserId = 1;
  let nextTeamId = 1;
  let nextPluginId = 1;
  let nextFlagId = 1;

  const user = (orgIndex: number, i: number): User => {
    const id = nextUserId++;
    return {
      id,
      uuid: uuid(),
      distinct_id: `distinct-${id}`,
      first_name: `User${id}`,
      last_name: `Org${orgIndex}`,
      email: `user${id}@org${orgIndex}.example.com`,
      is_email_verified: i % 3 !== 0,
      hedgehog_config: null,
      role_at_organization: null,
    };
  };

  const flag = (teamId: number, name: string): FeatureFlag => ({
    id: nextFlagId++,
    team_id: teamId,
    name,
    key: `flag-${nextFlagId}`,
    filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
    deleted: false,
    active: true,
    ensure_experience_continuity: false,
    has_encrypted_payloads: false,
    version: 1,
    evaluation_runtime: 'all',
    bucketing_identifier: 'distinct_id',
    evaluation_tags: [],
  });

  const organizations: Organization[] = [];
  const lists: Dataset['lists'] = new Map();
  const surveys: Dataset['surveys'] = new Map();

  for (let o = 0; o < DATASET_SIZES.organizations; o += 1) {
    const orgId = uuid();
    const teams: Team[] = [];
    for (let p = 0; p < DATASET_SIZES.projectsPerOrganization; p += 1) {
      const teamId = nextTeamId++;
      teams.push({
        id: teamId,
        uuid: uuid(),
        organization: orgId,
        project_id: teamId,
        name: `Project ${o}.${p}`,
        timezone: 'UTC',
        is_demo: false,
      });
      const projectSurveys: Survey[] = [];
      for (let s = 0; s < DATASET_SIZES.surveysPerProject; s += 1) {
        projectSurveys.push({
          id: uuid(),
          name: `Survey ${o}.${p}.${s}`,
          description: 'How are we doing?',
          type: ['popover', 'widget', 'api', 'external_survey'][s % 4] as string,
          linked_flag: null,
          linked_flag_id: null,
          targeting_flag: null,
          internal_targeting_flag: s % 2 === 0 ? flag(teamId, `Survey internal ${s}`) : null,
          questions: [{ type: 'open', question: 'What can we improve?' }],
          conditions: null,
          appearance: { backgroundColor: '#eeeded' },
          created_at: iso(random),
          created_by: user(o, s),
          start_date: s % 2 === 0 ? iso(random, 30) : null,
          end_date: null,
          archived: false,
          responses_limit: null,
          iteration_count: null,
          iteration_frequency_days: null,
          iteration_start_dates: [],
          current_iteration: null,
          current_iteration_start_date: null,
          schedule: 'once',
          linked_insight_id: null,
          response_sampling_start_date: null,
          response_sampling_interval_type: 'week',
          response_sampling_interval: null,
          response_sampling_limit: null,
          response_sampling_daily_limits: null,
          enable_partial_responses: false,
          enable_iframe_embedding: false,
          feature_flag_keys: [],
          user_access_level: 'editor',
        });
      }
      surveys.set(String(teamId), projectSurveys);
    }

    const name = `Organization ${o + 1}`;
    organizations.push({
      id: orgId,
      name,
      slug: `organization-${o + 1}`,
      created_at: iso(random),
      updated_at: iso(random, 10),
      membership_level: 15,
      plugins_access_level: 9,
      teams,
      available_product_features: [{ key: 'data_pipelines', name: 'Data pipelines' }],
      is_member_join_email_enabled: true,
      metadata: {},
      customer_id: null,
      enforce_2fa: null,
      member_count: DATASET_SIZES.members,
      projects: teams.map((team) => ({ id: team.project_id as number, name: team.name ?? null })),
      logo_media_id: null,
      default_role_id: null,
      enforce_verified_domains: false,
      members_can_invite: true,
      members_can_create_projects: true,
      members_can_use_personal_api_keys: true,
      members_can_see_org_members: true,
      allow_publicly_shared_resources: true,
      read_only_mcp_access: false,
      is_ai_data_processing_approved: null,
      is_ai_training_opted_in: false,
      default_anonymize_ips: false,
      is_ai_training_locked: false,
      is_ai_training_cta_shown: false,
      has_signed_baa: false,
      is_active: true,
      is_pending_deletion: false,
      uses_most_specific_access_resolution: false,
      is_not_active_reason: null,
    });

    const batchExports: BatchExport[] = Array.from({ length: DATASET_SIZES.batchExports }, (_, i) => {
      const id = uuid();
      return {
        id,
        team_id: teams[0]?.id as number,
        name: `Export ${o}.${i}`,
        model: i % 2 === 0 ? 'events' : 'persons',
        destination: {
          type: DESTINATION_TYPES[i % DESTINATION_TYPES.length] as string,
          config: { bucket_name: `bucket-${o}-${i}`, prefix: 'events/' },
          integration: null,
          integration_id: null,
        },
        interval: INTERVALS[i % INTERVALS.length] as string,
        paused: i % 3 === 0,
        created_at: iso(random),
        last_updated_at: iso(random, 10),
        last_paused_at: i % 3 === 0 ? iso(random, 5) : null,
        start_at: null,
        end_at: null,
        latest_runs: [
          {
            id: uuid(),
            status: 'Completed',
            records_completed: 1000 + i,
            latest_error: null,
            data_interval_start: iso(random, 2),
            data_interval_end: iso(random, 1),
            cursor: null,
            created_at: iso(random, 1),
            finished_at: iso(random, 1),
            last_updated_at: iso(random, 1),
            records_total_count: 1000 + i,
            batch_export: id,
            bytes_exported: 52_000 + i,
            backfill: null,
          },
        ],
        hogql_query: null,
        schema: null,
        filters: null,
        timezone: 'UTC',
        offset_day: null,
        offset_hour: null,
      };
    });

    const domains: Domain[] = Array.from({ length: DATASET_SIZES.domains }, (_, i) => ({
      id: uuid(),
      domain: `d${i}.org${o}.example.com`,
      is_verified: i % 2 === 0,
      verified_at: i % 2 === 0 ? iso(random) : null,
      verification_challenge: `challenge-${o}-${i}`,
      jit_provisioning_enabled: false,
      sso_enforcement: '',
      scim_base_url: null,
    }));

    const members: Member[] = Array.from({ length: DATASET_SIZES.members }, (_, i) => ({
      id: uuid(),
      user: user(o, i),
      level: i === 0 ? 15 : i < 3 ? 8 : 1,
      joined_at: iso(random),
      updated_at: iso(random, 10),
      is_2fa_enabled: i % 4 === 0,
      has_social_auth: i % 5 === 0,
      last_login: iso(random, 1),
      search_match_type: null,
    }));

    const invites: Invite[] = Array.from({ length: DATASET_SIZES.invites }, (_, i) => ({
      id: uuid(),
      target_email: `invitee${i}@org${o}.example.com`,
      first_name: `Invitee${i}`,
      emailing_attempt_made: false,
      level: 1,
      is_expired: false,
      created_by: members[0]?.user ?? null,
      created_at: iso(random, 2),
      updated_at: iso(random, 1),
      message: null,
      private_project_access: [],
    }));

    const plugin = (family: string, i: number): PipelineItem => ({
      id: nextPluginId++,
      plugin_type: 'custom',
      name: `${family} ${o}.${i}`,
      description: 'A pipeline item.',
      url: null,
      icon: null,
      config_schema: [{ key: 'url', type: 'string', required: true }],
      tag: 'v1.0.0',
      latest_tag: 'v1.0.0',
      is_global: false,
      organization_id: orgId,
      organization_name: name,
      capabilities: { methods: ['processEvent'] },
      metrics: {},
      public_jobs: {},
      hog_function_migration_available: false,
    });

    lists.set(orgId, {
      batch_exports: batchExports,
      domains,
      invites,
      members,
      pipeline_destinations: Array.from({ length: DATASET_SIZES.pipelineDestinations }, (_, i) => plugin('Destination', i)),
      pipeline_frontend_apps: Array.from({ length: DATASET_SIZES.pipelineFrontendApps }, (_, i) => plugin('Frontend app', i)),
      pipeline_import_apps: Array.from({ length: DATASET_SIZES.pipelineImportApps }, (_, i) => plugin('Import app', i)),
    });
  }
  return { organizations, lists, surveys };
}
