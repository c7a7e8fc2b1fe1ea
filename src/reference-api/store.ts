// The reference API's whole state, in memory. One store per server instance; tests reach it through
// `api.store` to arrange data and to inspect writes. Collections are Maps, so iteration order is
// creation order, which is the order every list answers in.
import type { BatchExportRun, PipelineFamily } from '../wire/rest-types.ts';
import { createIdSource, type IdSource } from './random.ts';
import {
  LEVEL_OWNER,
  type OrganizationSettings,
  type StoredActivity,
  type StoredBatchExport,
  type StoredDomain,
  type StoredFeatureFlag,
  type StoredInvite,
  type StoredMembership,
  type StoredOrganization,
  type StoredPipelineItem,
  type StoredSurvey,
  type StoredTeam,
  type StoredUser,
} from './stored-records.ts';
import { formatTimestamp } from './time.ts';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A new organization's settings, as the live service's model defaults them. */
const DEFAULT_ORGANIZATION_SETTINGS: OrganizationSettings = {
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
};

/** A new survey's scheduling and sampling, as the live service's model defaults them. */
const DEFAULT_SURVEY_SETTINGS = {
  schedule: 'once',
  linked_insight_id: null,
  response_sampling_start_date: null,
  response_sampling_interval_type: 'week',
  response_sampling_interval: null,
  response_sampling_limit: null,
  response_sampling_daily_limits: null,
  enable_partial_responses: false,
  enable_iframe_embedding: false,
  user_access_level: 'editor',
};

/** Product features the live service lists for an organization on a paid plan. */
const DEFAULT_PRODUCT_FEATURES = [
  {
    key: 'sso_enforcement',
    name: 'SSO enforcement',
    description: 'Require members to log in with SSO.',
    unit: null,
    limit: null,
    note: null,
  },
  { key: 'saml', name: 'SAML SSO', description: 'Log in with your identity provider.', unit: null, limit: null, note: null },
  {
    key: 'surveys_multiple_questions',
    name: 'Multiple questions',
    description: 'Ask more than one question per survey.',
    unit: null,
    limit: null,
    note: null,
  },
];

function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[-\s_]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return slug || 'organization';
}

function removeWhere<K, V>(map: Map<K, V>, belongs: (value: V) => boolean): void {
  for (const [key, value] of map) if (belongs(value)) map.delete(key);
}

interface StoreOptions {
  /** The clock; every timestamp the server writes comes from it. */
  now?: () => Date;
  /** Seed of the id stream for records created at run time. */
  seed?: string;
}

export class ReferenceStore {
  readonly users = new Map<number, StoredUser>();
  readonly organizations = new Map<string, StoredOrganization>();
  readonly teams = new Map<number, StoredTeam>();
  readonly memberships = new Map<string, StoredMembership>();
  readonly batchExports = new Map<string, StoredBatchExport>();
  readonly domains = new Map<string, StoredDomain>();
  readonly invites = new Map<string, StoredInvite>();
  readonly pipelineItems = new Map<number, StoredPipelineItem>();
  readonly featureFlags = new Map<number, StoredFeatureFlag>();
  readonly surveys = new Map<string, StoredSurvey>();
  readonly activity = new Map<string, StoredActivity>();

  readonly ids: IdSource;
  private readonly clock: () => Date;
  private readonly counters = { user: 0, team: 0, pipelineItem: 0, featureFlag: 0 };

  constructor(options: StoreOptions = {}) {
    this.clock = options.now ?? (() => new Date());
    this.ids = createIdSource(options.seed ?? 'reference-api:runtime');
  }

  /** The current time, formatted as the live service writes it. */
  now(): string {
    return formatTimestamp(this.clock());
  }

  nowDate(): Date {
    return this.clock();
  }

  // ---- users and organizations -------------------------------------------------------------------

  addUser(fields: Partial<StoredUser> & Pick<StoredUser, 'email' | 'first_name'>): StoredUser {
    const id = fields.id ?? this.counters.user + 1;
    this.counters.user = Math.max(this.counters.user, id);
    const user: StoredUser = {
      uuid: this.ids.uuid(),
      distinct_id: this.ids.token(43, ALPHANUMERIC),
      last_name: '',
      is_email_verified: true,
      hedgehog_config: null,
      is_2fa_enabled: false,
      has_social_auth: false,
      role_at_organization: null,
      last_login: null,
      ...fields,
      id,
    };
    this.users.set(id, user);
    return user;
  }

  userByUuid(uuid: string): StoredUser | undefined {
    return [...this.users.values()].find((user) => user.uuid === uuid);
  }

  /** A slug from the name, made unique with a numeric suffix (`acme`, `acme-2`, ...). */
  uniqueSlug(name: string): string {
    const base = slugify(name);
    const taken = new Set([...this.organizations.values()].map((org) => org.slug));
    if (!taken.has(base)) return base;
    for (let n = 2; ; n++) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  }

  /**
   * Adds an organization. With `owner`, that user becomes its owner (level 15); with `firstTeamName`
   * (default "Default project", `null` for none) it gets a first project, as the live service does.
   */
  addOrganization(
    fields: Partial<StoredOrganization> & Pick<StoredOrganization, 'name'>,
    options: { owner?: number; firstTeamName?: string | null } = {},
  ): StoredOrganization {
    const now = this.now();
    const org: StoredOrganization = {
      id: this.ids.uuid(),
      slug: this.uniqueSlug(fields.name),
      created_at: now,
      updated_at: now,
      plugins_access_level: 9,
      available_product_features: DEFAULT_PRODUCT_FEATURES.map((feature) => ({ ...feature })),
      is_member_join_email_enabled: true,
      metadata: '{"instance_tag": "none"}',
      customer_id: null,
      enforce_2fa: null,
      ...DEFAULT_ORGANIZATION_SETTINGS,
      ...fields,
    };
    this.organizations.set(org.id, org);
    if (options.owner !== undefined) this.addMembership(org.id, options.owner, LEVEL_OWNER, { joined_at: org.created_at });
    const firstTeamName = options.firstTeamName === undefined ? 'Default project' : options.firstTeamName;
    if (firstTeamName !== null) this.addTeam(org.id, { name: firstTeamName, created_at: org.created_at });
    return org;
  }

  addTeam(organizationId: string, fields: Partial<StoredTeam> & Pick<StoredTeam, 'name'>): StoredTeam {
    const id = fields.id ?? this.counters.team + 1;
    this.counters.team = Math.max(this.counters.team, id);
    const team: StoredTeam = {
      uuid: this.ids.uuid(),
      project_id: id,
      api_token: `phc_${this.ids.token(43, ALPHANUMERIC)}`,
      completed_snapshot_onboarding: false,
      has_completed_onboarding_for: null,
      ingested_event: false,
      is_demo: false,
      timezone: 'UTC',
      access_control: false,
      created_at: this.now(),
      ...fields,
      id,
      organization_id: organizationId,
    };
    this.teams.set(id, team);
    return team;
  }

  addMembership(organizationId: string, userId: number, level: number, fields: Partial<StoredMembership> = {}): StoredMembership {
    const now = this.now();
    const membership: StoredMembership = {
      id: this.ids.uuid(),
      joined_at: now,
      updated_at: fields.joined_at ?? now,
      ...fields,
      organization_id: organizationId,
      user_id: userId,
      level,
    };
    this.memberships.set(membership.id, membership);
    return membership;
  }

  membership(organizationId: string, userId: number): StoredMembership | undefined {
    return [...this.memberships.values()].find((m) => m.organization_id === organizationId && m.user_id === userId);
  }

  membersOf(organizationId: string): StoredMembership[] {
    return [...this.memberships.values()].filter((m) => m.organization_id === organizationId);
  }

  organizationsOf(userId: number): StoredOrganization[] {
    return [...this.organizations.values()].filter((org) => this.membership(org.id, userId));
  }

  teamsOf(organizationId: string): StoredTeam[] {
    return [...this.teams.values()].filter((team) => team.organization_id === organizationId);
  }

  /** Removes an organization and everything in it, as the live service's cascade does. */
  deleteOrganization(organizationId: string): void {
    const teamIds = new Set(this.teamsOf(organizationId).map((team) => team.id));
    const inOrg = (record: { organization_id: string }) => record.organization_id === organizationId;
    removeWhere(this.memberships, inOrg);
    removeWhere(this.batchExports, inOrg);
    removeWhere(this.domains, inOrg);
    removeWhere(this.invites, inOrg);
    removeWhere(this.pipelineItems, inOrg);
    removeWhere(this.activity, inOrg);
    removeWhere(this.teams, inOrg);
    removeWhere(this.featureFlags, (flag) => teamIds.has(flag.team_id));
    removeWhere(this.surveys, (survey) => teamIds.has(survey.team_id));
    this.organizations.delete(organizationId);
  }

  // ---- organization resources ---------------------------------------------------------------------

  batchExportsOf(organizationId: string): StoredBatchExport[] {
    return [...this.batchExports.values()].filter((e) => e.organization_id === organizationId);
  }

  addBatchExport(organizationId: string, fields: Partial<StoredBatchExport> & Pick<StoredBatchExport, 'name'>): StoredBatchExport {
    const now = this.now();
    const exportRecord: StoredBatchExport = {
      id: this.ids.uuid(),
      // Batch exports belong to a project in the live service; here, the organization's first one.
      team_id: this.teamsOf(organizationId)[0]?.id ?? 0,
      model: 'events',
      destination: { type: 'S3', config: {}, integration: null, integration_id: null },
      interval: 'hour',
      paused: false,
      created_at: now,
      last_updated_at: now,
      last_paused_at: null,
      start_at: null,
      end_at: null,
      latest_runs: [],
      hogql_query: null,
      schema: null,
      filters: null,
      timezone: 'UTC',
      offset_day: null,
      offset_hour: null,
      ...fields,
      organization_id: organizationId,
    };
    this.batchExports.set(exportRecord.id, exportRecord);
    return exportRecord;
  }

  /** Records a run on an export: newest first, at most 10 kept, as the live `latest_runs`. */
  addBatchExportRun(
    exportRecord: StoredBatchExport,
    fields: Partial<BatchExportRun> & Pick<BatchExportRun, 'data_interval_end'>,
  ): BatchExportRun {
    const now = this.now();
    const run: BatchExportRun = {
      id: this.ids.uuid(),
      status: 'Starting',
      records_completed: null,
      latest_error: null,
      data_interval_start: null,
      cursor: null,
      created_at: now,
      finished_at: null,
      last_updated_at: now,
      records_total_count: null,
      bytes_exported: null,
      backfill: null,
      ...fields,
      batch_export: exportRecord.id,
    };
    exportRecord.latest_runs = [run, ...exportRecord.latest_runs].slice(0, 10);
    return run;
  }

  domainsOf(organizationId: string): StoredDomain[] {
    return [...this.domains.values()].filter((d) => d.organization_id === organizationId);
  }

  addDomain(organizationId: string, fields: Partial<StoredDomain> & Pick<StoredDomain, 'domain'>): StoredDomain {
    const domain: StoredDomain = {
      id: this.ids.uuid(),
      verified_at: null,
      verification_challenge: this.ids.token(43),
      jit_provisioning_enabled: false,
      sso_enforcement: '',
      scim_base_url: null,
      ...fields,
      organization_id: organizationId,
    };
    this.domains.set(domain.id, domain);
    return domain;
  }

  invitesOf(organizationId: string): StoredInvite[] {
    return [...this.invites.values()].filter((i) => i.organization_id === organizationId);
  }

  addInvite(organizationId: string, fields: Partial<StoredInvite> & Pick<StoredInvite, 'target_email'>): StoredInvite {
    const now = this.now();
    const invite: StoredInvite = {
      id: this.ids.uuid(),
      first_name: '',
      emailing_attempt_made: false,
      level: 1,
      created_by_id: null,
      created_at: now,
      updated_at: fields.created_at ?? now,
      message: null,
      private_project_access: [],
      ...fields,
      organization_id: organizationId,
    };
    this.invites.set(invite.id, invite);
    return invite;
  }

  pipelineItemsOf(organizationId: string, family: PipelineFamily): StoredPipelineItem[] {
    return [...this.pipelineItems.values()].filter((p) => p.organization_id === organizationId && p.family === family);
  }

  addPipelineItem(
    organizationId: string,
    family: PipelineFamily,
    fields: Partial<StoredPipelineItem> & Pick<StoredPipelineItem, 'plugin_type'>,
  ): StoredPipelineItem {
    const id = fields.id ?? this.counters.pipelineItem + 1;
    this.counters.pipelineItem = Math.max(this.counters.pipelineItem, id);
    const item: StoredPipelineItem = {
      name: null,
      description: null,
      url: null,
      icon: null,
      config_schema: [],
      tag: null,
      latest_tag: null,
      is_global: false,
      capabilities: {},
      metrics: {},
      public_jobs: {},
      hog_function_migration_available: false,
      created_at: this.now(),
      in_use: false,
      source: {},
      ...fields,
      id,
      family,
      organization_id: organizationId,
    };
    this.pipelineItems.set(id, item);
    return item;
  }

  activityOf(organizationId: string, family: PipelineFamily): StoredActivity[] {
    return [...this.activity.values()].filter((a) => a.organization_id === organizationId && a.family === family);
  }

  addActivity(fields: Omit<StoredActivity, 'id' | 'created_at'> & Partial<Pick<StoredActivity, 'created_at'>>): StoredActivity {
    const entry: StoredActivity = { id: this.ids.uuid(), created_at: this.now(), ...fields };
    this.activity.set(entry.id, entry);
    return entry;
  }

  // ---- project resources --------------------------------------------------------------------------

  /** The team a project id names (`project_id` is the first team's id in the live service). */
  teamByProjectId(projectId: number): StoredTeam | undefined {
    return [...this.teams.values()].find((team) => team.project_id === projectId);
  }

  addFeatureFlag(teamId: number, fields: Partial<StoredFeatureFlag> & Pick<StoredFeatureFlag, 'key'>): StoredFeatureFlag {
    const id = fields.id ?? this.counters.featureFlag + 1;
    this.counters.featureFlag = Math.max(this.counters.featureFlag, id);
    const flag: StoredFeatureFlag = {
      name: '',
      filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
      deleted: false,
      active: true,
      ensure_experience_continuity: false,
      has_encrypted_payloads: false,
      version: 1,
      evaluation_runtime: 'all',
      bucketing_identifier: 'distinct_id',
      evaluation_tags: [],
      created_at: this.now(),
      ...fields,
      id,
      team_id: teamId,
    };
    this.featureFlags.set(id, flag);
    return flag;
  }

  surveysOf(teamId: number): StoredSurvey[] {
    return [...this.surveys.values()].filter((survey) => survey.team_id === teamId);
  }

  addSurvey(teamId: number, fields: Partial<StoredSurvey> & Pick<StoredSurvey, 'name'>): StoredSurvey {
    const survey: StoredSurvey = {
      id: this.ids.uuid(),
      description: '',
      type: 'popover',
      linked_flag_id: null,
      targeting_flag_id: null,
      internal_targeting_flag_id: null,
      questions: [],
      conditions: null,
      appearance: null,
      created_at: this.now(),
      created_by_id: null,
      start_date: null,
      end_date: null,
      archived: false,
      responses_limit: null,
      iteration_count: null,
      iteration_frequency_days: null,
      iteration_start_dates: [],
      current_iteration: null,
      current_iteration_start_date: null,
      ...DEFAULT_SURVEY_SETTINGS,
      responses_count: 0,
      ...fields,
      team_id: teamId,
    };
    this.surveys.set(survey.id, survey);
    return survey;
  }
}
