// The REST interface's wire types: its records as the seed (section 2) describes them, the list
// envelope, error bodies and action answers. Both the gateway's REST client and the bundled reference
// implementation import them, so both speak the same wire shapes; this module imports nothing.

/** 2.1: the envelope every list operation answers with. */
export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** One entry of an organization's `teams` (free-form in the seed; the live service sends these). */
export interface Team {
  id: number;
  project_id?: number | string | null;
  name?: string | null;
  [key: string]: unknown;
}

/** One entry of an organization's `projects` (the live service's ProjectBasicSerializer). */
export interface ProjectEntry {
  id: number;
  name?: string | null;
  [key: string]: unknown;
}

/** 2.2, with the live service's current fields (contract: The real service). */
export interface Organization {
  id: string;
  name: string;
  slug: string;
  created_at: string;
  updated_at: string;
  membership_level: number | null;
  plugins_access_level: number | null;
  teams: Team[];
  available_product_features: unknown[];
  is_member_join_email_enabled: boolean;
  /** A string in the seed; the live service sends an object. */
  metadata: unknown;
  customer_id: string | null;
  enforce_2fa: boolean | null;
  member_count: string | number | null;
  projects: ProjectEntry[];
  logo_media_id: string | null;
  default_role_id: string | null;
  enforce_verified_domains: boolean | null;
  members_can_invite: boolean | null;
  members_can_create_projects: boolean | null;
  members_can_use_personal_api_keys: boolean | null;
  members_can_see_org_members: boolean | null;
  allow_publicly_shared_resources: boolean | null;
  read_only_mcp_access: boolean | null;
  is_ai_data_processing_approved: boolean | null;
  is_ai_training_opted_in: boolean | null;
  default_anonymize_ips: boolean | null;
  is_ai_training_locked: boolean | null;
  is_ai_training_cta_shown: boolean | null;
  has_signed_baa: boolean | null;
  is_active: boolean | null;
  is_pending_deletion: boolean | null;
  uses_most_specific_access_resolution: boolean | null;
  is_not_active_reason: string | null;
}

/** 2.3 */
export interface BatchExportRun {
  id: string;
  status: string;
  records_completed: number | null;
  latest_error: string | null;
  data_interval_start: string | null;
  data_interval_end: string;
  cursor: string | null;
  created_at: string;
  finished_at: string | null;
  last_updated_at: string;
  records_total_count: number | null;
  batch_export: string;
  /** 64-bit: may pass 2^31. */
  bytes_exported: number | null;
  backfill: string | null;
}

export interface BatchExportDestination {
  type: string;
  config: Record<string, unknown>;
  integration: number | null;
  integration_id: number | null;
}

export interface BatchExport {
  id: string;
  team_id: number;
  name: string;
  model: string | null;
  destination: BatchExportDestination;
  interval: string;
  paused: boolean;
  created_at: string;
  last_updated_at: string;
  last_paused_at: string | null;
  start_at: string | null;
  end_at: string | null;
  latest_runs: BatchExportRun[];
  hogql_query: string | null;
  schema: unknown;
  filters: unknown;
  timezone: string | null;
  offset_day: number | null;
  offset_hour: number | null;
}

/** 2.4. The live service moved the SAML settings to identity provider configs: they may be absent. */
export interface Domain {
  id: string;
  domain: string;
  is_verified: boolean;
  verified_at: string | null;
  verification_challenge: string;
  jit_provisioning_enabled: boolean;
  sso_enforcement: string;
  scim_base_url: string | null;
  has_saml?: boolean;
  saml_entity_id?: string | null;
  saml_acs_url?: string | null;
  saml_x509_cert?: string | null;
}

/** 2.5: embedded in invites, members and surveys. */
export interface User {
  id: number;
  uuid: string;
  distinct_id: string | null;
  first_name: string;
  last_name: string | null;
  email: string;
  is_email_verified: boolean | null;
  hedgehog_config: Record<string, unknown> | null;
  role_at_organization: string | null;
}

/** 2.6 */
export interface Invite {
  id: string;
  target_email: string;
  first_name: string;
  emailing_attempt_made: boolean;
  level: number;
  is_expired: boolean;
  created_by: User | null;
  created_at: string;
  updated_at: string;
  message: string | null;
  private_project_access: unknown;
}

/** 2.7 */
export interface Member {
  id: string;
  user: User;
  level: number;
  joined_at: string;
  updated_at: string;
  is_2fa_enabled: boolean;
  has_social_auth: boolean;
  last_login: string | null;
  /** Set by a member search (`exact`, `similar`); null otherwise. */
  search_match_type: string | null;
}

/** 2.8: shared by destinations, frontend apps and import apps. */
export interface PipelineItem {
  id: number;
  plugin_type: string | null;
  name: string | null;
  description: string | null;
  url: string | null;
  icon: string | null;
  config_schema: unknown;
  tag: string | null;
  latest_tag: string | null;
  is_global: boolean;
  organization_id: string;
  organization_name: string;
  capabilities: unknown;
  metrics: unknown;
  public_jobs: unknown;
  hog_function_migration_available: boolean | null;
}

/** 2.9: embedded in surveys. */
export interface FeatureFlag {
  id: number;
  team_id: number;
  name: string;
  key: string;
  filters: Record<string, unknown>;
  deleted: boolean;
  active: boolean;
  ensure_experience_continuity: boolean | null;
  has_encrypted_payloads: boolean | null;
  version: number | null;
  evaluation_runtime: string | null;
  bucketing_identifier: string | null;
  evaluation_tags: string[] | null;
}

/** 2.10 */
export interface Survey {
  id: string;
  name: string;
  description: string;
  type: string;
  linked_flag: FeatureFlag | null;
  linked_flag_id: number | null;
  targeting_flag: FeatureFlag | null;
  targeting_flag_id?: number | null;
  targeting_flag_filters?: unknown;
  remove_targeting_flag?: boolean | null;
  internal_targeting_flag: FeatureFlag | null;
  questions: unknown;
  conditions: unknown;
  appearance: unknown;
  created_at: string;
  created_by: User | null;
  start_date: string | null;
  end_date: string | null;
  archived: boolean;
  responses_limit: number | null;
  iteration_count: number | null;
  iteration_frequency_days: number | null;
  iteration_start_dates: string[] | null;
  current_iteration: number | null;
  current_iteration_start_date: string | null;
  schedule: string | null;
  linked_insight_id: number | null;
  response_sampling_start_date: string | null;
  response_sampling_interval_type: string | null;
  response_sampling_interval: number | null;
  response_sampling_limit: number | null;
  response_sampling_daily_limits: unknown;
  enable_partial_responses: boolean | null;
  enable_iframe_embedding: boolean | null;
  feature_flag_keys: unknown[] | null;
  user_access_level: string | null;
}

/** The three pipeline families share one record shape and differ only by path segment. */
export const PIPELINE_FAMILIES = ['pipeline_destinations', 'pipeline_frontend_apps', 'pipeline_import_apps'] as const;
export type PipelineFamily = (typeof PIPELINE_FAMILIES)[number];

/** 2.x error body of the live service: only the first error is reported. */
export interface RestErrorBody {
  type: 'validation_error' | 'authentication_error' | 'invalid_request' | 'throttled_error' | 'server_error';
  code: string;
  detail: string;
  attr: string | null;
}

/**
 * Answers of the action endpoints, which differ between the seed (the record) and the live service.
 * The schema layer normalises them; the client only says which shapes to expect.
 */
export type PauseAnswer = BatchExport | { paused: boolean };
export type BackfillAnswer = BatchExport | { backfill_id: string | number };
export type BulkInvitesAnswer = Invite | Invite[];
export type CheckForUpdatesAnswer = PipelineItem | { plugin: PipelineItem };
