// What the store keeps. Close to the wire shapes of ../wire/rest-types.ts, plus the links (organization,
// team, user ids) and internal state the wire shapes leave out; computed fields (membership_level,
// is_expired, has_saml, embedded users and flags) are filled in by serializers.ts at read time.
import type {
  BatchExport,
  Domain,
  FeatureFlag,
  Invite,
  Organization,
  PipelineFamily,
  PipelineItem,
  Survey,
  User,
} from '../wire/rest-types.ts';

export interface StoredUser extends User {
  is_2fa_enabled: boolean;
  has_social_auth: boolean;
  last_login: string | null;
}

/** The organization settings and states of the live service (contract: The real service). */
export type OrganizationSettings = Pick<
  Organization,
  | 'logo_media_id'
  | 'default_role_id'
  | 'enforce_verified_domains'
  | 'members_can_invite'
  | 'members_can_create_projects'
  | 'members_can_use_personal_api_keys'
  | 'members_can_see_org_members'
  | 'allow_publicly_shared_resources'
  | 'read_only_mcp_access'
  | 'is_ai_data_processing_approved'
  | 'is_ai_training_opted_in'
  | 'default_anonymize_ips'
  | 'is_ai_training_locked'
  | 'is_ai_training_cta_shown'
  | 'has_signed_baa'
  | 'is_active'
  | 'is_pending_deletion'
  | 'uses_most_specific_access_resolution'
  | 'is_not_active_reason'
>;

export interface StoredOrganization extends OrganizationSettings {
  id: string;
  name: string;
  slug: string;
  created_at: string;
  updated_at: string;
  plugins_access_level: number;
  available_product_features: unknown[];
  is_member_join_email_enabled: boolean;
  /** A string, as the seed types it (the live service sends an object). */
  metadata: string;
  customer_id: string | null;
  enforce_2fa: boolean | null;
}

/** A project. The live service's `teams` entries are these; `project_id` equals `id` for the first team. */
export interface StoredTeam {
  id: number;
  uuid: string;
  organization_id: string;
  project_id: number;
  /** The name of the project this team belongs to (the organization's `projects` entry); the team's own name when unset. */
  project_name?: string;
  api_token: string;
  name: string;
  completed_snapshot_onboarding: boolean;
  has_completed_onboarding_for: Record<string, boolean> | null;
  ingested_event: boolean;
  is_demo: boolean;
  timezone: string;
  access_control: boolean;
  created_at: string;
}

export interface StoredMembership {
  id: string;
  organization_id: string;
  user_id: number;
  /** 1 member, 8 admin, 15 owner. */
  level: number;
  joined_at: string;
  updated_at: string;
}

export interface StoredBatchExport extends BatchExport {
  organization_id: string;
}

/** The live domain record has no SAML settings: they moved to identity provider configs. */
export interface StoredDomain extends Omit<Domain, 'is_verified' | 'has_saml' | 'saml_entity_id' | 'saml_acs_url' | 'saml_x509_cert'> {
  organization_id: string;
}

export interface StoredInvite extends Omit<Invite, 'is_expired' | 'created_by'> {
  organization_id: string;
  created_by_id: number | null;
}

export interface StoredPipelineItem extends Omit<PipelineItem, 'organization_name'> {
  family: PipelineFamily;
  created_at: string;
  /** Whether a plugin config uses it (drives the live shape of `unused`). */
  in_use: boolean;
  /** The plugin's source files (the live shape of `source` / `update_source`). */
  source: Record<string, string>;
}

export interface StoredFeatureFlag extends FeatureFlag {
  created_at: string;
}

export interface StoredSurvey
  extends Omit<
    Survey,
    | 'linked_flag'
    | 'targeting_flag'
    | 'internal_targeting_flag'
    | 'created_by'
    | 'targeting_flag_filters'
    | 'remove_targeting_flag'
    | 'feature_flag_keys'
  > {
  team_id: number;
  targeting_flag_id: number | null;
  internal_targeting_flag_id: number | null;
  created_by_id: number | null;
  /** How many responses the survey has (the live service counts `survey sent` events). */
  responses_count: number;
}

/** An activity-log entry of a pipeline item (the live shape of `activity`). */
export interface StoredActivity {
  id: string;
  organization_id: string;
  family: PipelineFamily;
  item_id: number;
  user_id: number | null;
  activity: 'created' | 'updated' | 'deleted' | 'upgraded' | 'source_updated';
  detail: Record<string, unknown>;
  created_at: string;
}

export const LEVEL_MEMBER = 1;
export const LEVEL_ADMIN = 8;
export const LEVEL_OWNER = 15;
export const MEMBER_LEVELS = [LEVEL_MEMBER, LEVEL_ADMIN, LEVEL_OWNER] as const;
