// Stored records -> the wire shapes of seed section 2. Computed fields are filled in here, at read
// time: the caller's membership level, invite expiry, `has_saml`, embedded users and flags.
import type {
  BatchExport,
  Domain,
  FeatureFlag,
  Invite,
  Member,
  Organization,
  PipelineItem,
  ProjectEntry,
  Survey,
  Team,
  User,
} from '../wire/rest-types.ts';
import type { ReferenceStore } from './store.ts';
import type {
  StoredBatchExport,
  StoredDomain,
  StoredFeatureFlag,
  StoredInvite,
  StoredMembership,
  StoredOrganization,
  StoredPipelineItem,
  StoredSurvey,
  StoredTeam,
  StoredUser,
} from './stored-records.ts';
import { DAY_MS } from './time.ts';

/** The live service's INVITE_DAYS_VALIDITY. */
const INVITE_VALIDITY_DAYS = 3;

function serializeUser(user: StoredUser): User {
  return {
    id: user.id,
    uuid: user.uuid,
    distinct_id: user.distinct_id,
    first_name: user.first_name,
    last_name: user.last_name,
    email: user.email,
    is_email_verified: user.is_email_verified,
    hedgehog_config: user.hedgehog_config,
    role_at_organization: user.role_at_organization,
  };
}

/** The live service's `teams` entry (TeamBasicSerializer's public part). */
function serializeTeam(team: StoredTeam): Team {
  return {
    id: team.id,
    uuid: team.uuid,
    organization: team.organization_id,
    project_id: team.project_id,
    api_token: team.api_token,
    name: team.name,
    completed_snapshot_onboarding: team.completed_snapshot_onboarding,
    has_completed_onboarding_for: team.has_completed_onboarding_for,
    ingested_event: team.ingested_event,
    is_demo: team.is_demo,
    timezone: team.timezone,
    access_control: team.access_control,
  };
}

/** The live service's `projects` entry (ProjectBasicSerializer): one per project, named as the project. */
function projectsOf(teams: StoredTeam[]): ProjectEntry[] {
  const projects = new Map<number, ProjectEntry>();
  for (const team of teams) {
    if (!projects.has(team.project_id)) projects.set(team.project_id, { id: team.project_id, name: team.project_name ?? team.name });
  }
  return [...projects.values()];
}

export function serializeOrganization(store: ReferenceStore, org: StoredOrganization, viewerId: number): Organization {
  const teams = store.teamsOf(org.id);
  return {
    id: org.id,
    name: org.name,
    slug: org.slug,
    created_at: org.created_at,
    updated_at: org.updated_at,
    membership_level: store.membership(org.id, viewerId)?.level ?? null,
    plugins_access_level: org.plugins_access_level,
    teams: teams.map(serializeTeam),
    projects: projectsOf(teams),
    available_product_features: structuredClone(org.available_product_features),
    is_member_join_email_enabled: org.is_member_join_email_enabled,
    metadata: org.metadata,
    customer_id: org.customer_id,
    enforce_2fa: org.enforce_2fa,
    // A string, as the seed types it; the live service sends an integer.
    member_count: String(store.membersOf(org.id).length),
    logo_media_id: org.logo_media_id,
    default_role_id: org.default_role_id,
    enforce_verified_domains: org.enforce_verified_domains,
    members_can_invite: org.members_can_invite,
    members_can_create_projects: org.members_can_create_projects,
    members_can_use_personal_api_keys: org.members_can_use_personal_api_keys,
    members_can_see_org_members: org.members_can_see_org_members,
    allow_publicly_shared_resources: org.allow_publicly_shared_resources,
    read_only_mcp_access: org.read_only_mcp_access,
    is_ai_data_processing_approved: org.is_ai_data_processing_approved,
    is_ai_training_opted_in: org.is_ai_training_opted_in,
    default_anonymize_ips: org.default_anonymize_ips,
    is_ai_training_locked: org.is_ai_training_locked,
    is_ai_training_cta_shown: org.is_ai_training_cta_shown,
    has_signed_baa: org.has_signed_baa,
    is_active: org.is_active,
    is_pending_deletion: org.is_pending_deletion,
    uses_most_specific_access_resolution: org.uses_most_specific_access_resolution,
    is_not_active_reason: org.is_not_active_reason,
  };
}

export function serializeBatchExport(record: StoredBatchExport): BatchExport {
  const { organization_id: _organization, ...wire } = structuredClone(record);
  return wire;
}

export function serializeDomain(domain: StoredDomain): Domain {
  return {
    id: domain.id,
    domain: domain.domain,
    is_verified: domain.verified_at !== null,
    verified_at: domain.verified_at,
    verification_challenge: domain.verification_challenge,
    jit_provisioning_enabled: domain.jit_provisioning_enabled,
    sso_enforcement: domain.sso_enforcement,
    // The SAML settings moved to identity provider configs: the live domain record has none.
    scim_base_url: domain.scim_base_url,
  };
}

function isInviteExpired(invite: StoredInvite, now: Date): boolean {
  return Date.parse(invite.created_at) < now.getTime() - INVITE_VALIDITY_DAYS * DAY_MS;
}

export function serializeInvite(store: ReferenceStore, invite: StoredInvite): Invite {
  const creator = invite.created_by_id === null ? undefined : store.users.get(invite.created_by_id);
  return {
    id: invite.id,
    target_email: invite.target_email,
    first_name: invite.first_name,
    emailing_attempt_made: invite.emailing_attempt_made,
    level: invite.level,
    is_expired: isInviteExpired(invite, store.nowDate()),
    created_by: creator ? serializeUser(creator) : null,
    created_at: invite.created_at,
    updated_at: invite.updated_at,
    message: invite.message,
    private_project_access: structuredClone(invite.private_project_access),
  };
}

export function serializeMember(store: ReferenceStore, membership: StoredMembership): Member {
  const user = store.users.get(membership.user_id);
  if (!user) throw new Error(`membership ${membership.id} names a missing user`);
  return {
    id: membership.id,
    user: serializeUser(user),
    level: membership.level,
    joined_at: membership.joined_at,
    updated_at: membership.updated_at,
    is_2fa_enabled: user.is_2fa_enabled,
    has_social_auth: user.has_social_auth,
    last_login: user.last_login,
    // The live service sets it only when the list is a search (`?search=`), which this API does not offer.
    search_match_type: null,
  };
}

export function serializePipelineItem(store: ReferenceStore, item: StoredPipelineItem): PipelineItem {
  return {
    id: item.id,
    plugin_type: item.plugin_type,
    name: item.name,
    description: item.description,
    url: item.url,
    icon: item.icon,
    config_schema: structuredClone(item.config_schema),
    tag: item.tag,
    latest_tag: item.latest_tag,
    is_global: item.is_global,
    organization_id: item.organization_id,
    organization_name: store.organizations.get(item.organization_id)?.name ?? '',
    capabilities: structuredClone(item.capabilities),
    metrics: structuredClone(item.metrics),
    public_jobs: structuredClone(item.public_jobs),
    hog_function_migration_available: item.hog_function_migration_available,
  };
}

function serializeFlag(flag: StoredFeatureFlag): FeatureFlag {
  return {
    id: flag.id,
    team_id: flag.team_id,
    name: flag.name,
    key: flag.key,
    filters: structuredClone(flag.filters),
    deleted: flag.deleted,
    active: flag.active,
    ensure_experience_continuity: flag.ensure_experience_continuity,
    has_encrypted_payloads: flag.has_encrypted_payloads,
    version: flag.version,
    evaluation_runtime: flag.evaluation_runtime,
    bucketing_identifier: flag.bucketing_identifier,
    evaluation_tags: flag.evaluation_tags ? [...flag.evaluation_tags] : [],
  };
}

/**
 * A survey. `writeShape` is the create/update response, which (per the seed) also carries
 * `targeting_flag_id`, `targeting_flag_filters` and `remove_targeting_flag`.
 */
export function serializeSurvey(store: ReferenceStore, survey: StoredSurvey, writeShape = false): Survey {
  const flag = (id: number | null) => {
    const found = id === null ? undefined : store.featureFlags.get(id);
    return found ? serializeFlag(found) : null;
  };
  const creator = survey.created_by_id === null ? undefined : store.users.get(survey.created_by_id);
  const targetingFlag = flag(survey.targeting_flag_id);
  return {
    id: survey.id,
    name: survey.name,
    description: survey.description,
    type: survey.type,
    linked_flag: flag(survey.linked_flag_id),
    linked_flag_id: survey.linked_flag_id,
    targeting_flag: targetingFlag,
    ...(writeShape
      ? {
          targeting_flag_id: survey.targeting_flag_id,
          targeting_flag_filters: targetingFlag ? targetingFlag.filters : null,
          remove_targeting_flag: false,
        }
      : {}),
    internal_targeting_flag: flag(survey.internal_targeting_flag_id),
    questions: structuredClone(survey.questions),
    conditions: structuredClone(survey.conditions),
    appearance: structuredClone(survey.appearance),
    created_at: survey.created_at,
    created_by: creator ? serializeUser(creator) : null,
    start_date: survey.start_date,
    end_date: survey.end_date,
    archived: survey.archived,
    responses_limit: survey.responses_limit,
    iteration_count: survey.iteration_count,
    iteration_frequency_days: survey.iteration_frequency_days,
    iteration_start_dates: survey.iteration_start_dates ? [...survey.iteration_start_dates] : null,
    current_iteration: survey.current_iteration,
    current_iteration_start_date: survey.current_iteration_start_date,
    schedule: survey.schedule,
    linked_insight_id: survey.linked_insight_id,
    response_sampling_start_date: survey.response_sampling_start_date,
    response_sampling_interval_type: survey.response_sampling_interval_type,
    response_sampling_interval: survey.response_sampling_interval,
    response_sampling_limit: survey.response_sampling_limit,
    response_sampling_daily_limits: structuredClone(survey.response_sampling_daily_limits),
    enable_partial_responses: survey.enable_partial_responses,
    enable_iframe_embedding: survey.enable_iframe_embedding,
    // The keys of the flags the survey uses (the live service's `feature_flag_keys`).
    feature_flag_keys: [
      { key: 'linked_flag_key', value: flag(survey.linked_flag_id)?.key ?? null },
      { key: 'targeting_flag_key', value: targetingFlag?.key ?? null },
      { key: 'internal_targeting_flag_key', value: flag(survey.internal_targeting_flag_id)?.key ?? null },
    ],
    user_access_level: survey.user_access_level,
  };
}
