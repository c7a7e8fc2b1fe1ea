// The deterministic demo data: fixed timestamps, ids from the store's seeded stream (seeded before any
// request, so every start gives the same ids). Two organizations the demo user belongs to (owner of
// one, admin of the other) and one it does not (the outsider's), each with every family populated.
// The one exception to fixed timestamps: pending invites are dated at start-up (rounded down to the
// hour), because an invite expires 3 days after it is created.
import { addDemoBatchExports } from './demo/batch-exports.ts';
import { addDemoPipelineItem } from './demo/pipeline.ts';
import { seedElsewhereSurveys, seedHedgehogSurveys, seedPricklySurveys } from './demo/surveys.ts';
import { DEMO_USER_ID, OUTSIDER_USER_ID, USER_IDS as users } from './demo-users.ts';
import type { ReferenceStore } from './store.ts';
import { LEVEL_ADMIN, LEVEL_MEMBER, LEVEL_OWNER } from './stored-records.ts';
import { shiftTimestamp as at, formatTimestamp, HOUR_MS } from './time.ts';

export function seedDemoData(store: ReferenceStore): void {
  const pendingInviteTime = formatTimestamp(new Date(Math.floor(store.nowDate().getTime() / HOUR_MS) * HOUR_MS));

  // ---- Hedgehog Analytics: the demo user's own organization, with the 35 batch exports -----------
  const hedgehog = store.addOrganization(
    {
      name: 'Hedgehog Analytics',
      created_at: at('2026-01-05T10:00:00Z'),
      updated_at: at('2026-01-05T10:00:00Z'),
      customer_id: 'cus_HedgehogDemo01',
      enforce_2fa: false,
      logo_media_id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
      enforce_verified_domains: true,
      members_can_invite: false,
      members_can_use_personal_api_keys: false,
      is_ai_data_processing_approved: true,
      has_signed_baa: true,
      uses_most_specific_access_resolution: true,
    },
    { firstTeamName: null },
  );
  store.addMembership(hedgehog.id, DEMO_USER_ID, LEVEL_OWNER, { joined_at: hedgehog.created_at });
  store.addMembership(hedgehog.id, users.alice, LEVEL_ADMIN, { joined_at: at('2026-01-06T09:30:00Z') });
  store.addMembership(hedgehog.id, users.bob, LEVEL_MEMBER, { joined_at: at('2026-01-07T14:15:00Z') });
  const web = store.addTeam(hedgehog.id, {
    name: 'Hedgehog Web',
    // The project's name differs from its first team's, as in the live service.
    project_name: 'Hedgehog',
    created_at: hedgehog.created_at,
    completed_snapshot_onboarding: true,
    has_completed_onboarding_for: { product_analytics: true, surveys: true },
    ingested_event: true,
  });
  const mobile = store.addTeam(hedgehog.id, {
    name: 'Hedgehog Mobile',
    created_at: at('2026-01-12T08:00:00Z'),
    timezone: 'Europe/Berlin',
    ingested_event: true,
  });
  addDemoBatchExports(store, hedgehog, 35, '2026-01-05T10:00:00Z');
  store.addDomain(hedgehog.id, {
    domain: 'hedgehog.example',
    verified_at: at('2026-01-08T12:00:00Z'),
    jit_provisioning_enabled: true,
    sso_enforcement: 'saml',
    scim_base_url: 'https://us.posthog.com/scim/v2/hedgehog-example',
  });
  store.addDomain(hedgehog.id, { domain: 'hedgehog-mail.example' });
  store.addInvite(hedgehog.id, {
    target_email: 'late@hedgehog.example',
    first_name: 'Lara',
    created_by_id: DEMO_USER_ID,
    created_at: at('2026-01-02T09:00:00Z'),
    emailing_attempt_made: true,
  });
  store.addInvite(hedgehog.id, {
    target_email: 'newbie@hedgehog.example',
    first_name: 'Nina',
    message: 'Welcome aboard!',
    created_by_id: DEMO_USER_ID,
    created_at: pendingInviteTime,
  });
  store.addInvite(hedgehog.id, {
    target_email: 'lead@hedgehog.example',
    first_name: 'Leo',
    level: LEVEL_ADMIN,
    created_by_id: users.alice,
    created_at: pendingInviteTime,
  });
  addDemoPipelineItem(store, hedgehog, 'pipeline_destinations', at('2026-01-09T10:00:00Z'), {
    name: 'Webhook',
    plugin_type: 'repository',
    hog_function_migration_available: true,
    description: 'Send events to any HTTP endpoint.',
    url: 'https://github.com/PostHog/webhook-plugin',
    tag: 'v1.2.0',
    latest_tag: 'v1.3.0',
    in_use: true,
  });
  addDemoPipelineItem(store, hedgehog, 'pipeline_destinations', at('2026-01-09T11:00:00Z'), {
    name: 'Customer.io',
    plugin_type: 'repository',
    description: 'Send events to Customer.io.',
    url: 'https://github.com/PostHog/customerio-plugin',
    tag: 'v0.9.1',
    latest_tag: 'v0.9.1',
  });
  addDemoPipelineItem(store, hedgehog, 'pipeline_destinations', at('2026-01-09T12:00:00Z'), {
    name: 'Local debugger',
    plugin_type: 'local',
    description: 'Logs every event it receives.',
    url: 'file:../debug-plugin',
  });
  addDemoPipelineItem(store, hedgehog, 'pipeline_frontend_apps', at('2026-01-10T10:00:00Z'), {
    name: 'Notification Bar',
    plugin_type: 'repository',
    description: 'Show a notification bar on your site.',
    url: 'https://github.com/PostHog/notification-bar-app',
    tag: 'a1b2c3d',
    latest_tag: 'e4f5a6b',
    in_use: true,
  });
  addDemoPipelineItem(store, hedgehog, 'pipeline_frontend_apps', at('2026-01-10T11:00:00Z'), {
    name: 'Bug Report Widget',
    plugin_type: 'source',
    description: 'Lets visitors report bugs.',
    source: {
      'plugin.json': '{\n  "name": "Bug Report Widget",\n  "config": []\n}',
      'site.ts': 'export function inject({ config, posthog }) {\n  // render the widget\n}\n',
    },
  });
  addDemoPipelineItem(store, hedgehog, 'pipeline_import_apps', at('2026-01-11T10:00:00Z'), {
    name: 'Salesforce Import',
    plugin_type: 'custom',
    description: 'Imports Salesforce accounts as persons.',
    in_use: true,
  });
  addDemoPipelineItem(store, hedgehog, 'pipeline_import_apps', at('2026-01-11T11:00:00Z'), {
    name: 'Redshift Import',
    plugin_type: 'repository',
    description: 'Imports rows from a Redshift table.',
    url: 'https://github.com/PostHog/posthog-redshift-import-plugin',
    tag: 'v0.3.0',
    latest_tag: 'v0.4.0',
  });
  seedHedgehogSurveys(store, web, mobile);

  // ---- Prickly Labs: the demo user is an admin here ------------------------------------------------
  const prickly = store.addOrganization(
    {
      name: 'Prickly Labs',
      created_at: at('2026-02-10T08:00:00Z'),
      updated_at: at('2026-03-01T08:00:00Z'),
      is_member_join_email_enabled: false,
      enforce_2fa: true,
      plugins_access_level: 3,
    },
    { firstTeamName: null },
  );
  store.addMembership(prickly.id, users.carol, LEVEL_OWNER, { joined_at: prickly.created_at });
  store.addMembership(prickly.id, DEMO_USER_ID, LEVEL_ADMIN, { joined_at: at('2026-02-11T09:00:00Z') });
  store.addMembership(prickly.id, users.dave, LEVEL_MEMBER, { joined_at: at('2026-02-12T09:00:00Z') });
  const lab = store.addTeam(prickly.id, { name: 'Prickly Default project', created_at: prickly.created_at, timezone: 'America/New_York' });
  addDemoBatchExports(store, prickly, 3, '2026-02-10T08:00:00Z');
  store.addDomain(prickly.id, { domain: 'prickly.example', verified_at: at('2026-02-11T10:00:00Z'), sso_enforcement: 'google-oauth2' });
  store.addInvite(prickly.id, {
    target_email: 'intern@prickly.example',
    first_name: 'Ivy',
    created_by_id: users.carol,
    created_at: pendingInviteTime,
  });
  addDemoPipelineItem(store, prickly, 'pipeline_destinations', at('2026-02-13T10:00:00Z'), {
    name: 'Slack alerts',
    plugin_type: 'repository',
    description: 'Posts chosen events to Slack.',
    url: 'https://github.com/PostHog/slack-plugin',
    tag: 'v1.0.0',
    latest_tag: 'v1.0.0',
    in_use: true,
  });
  addDemoPipelineItem(store, prickly, 'pipeline_frontend_apps', at('2026-02-13T11:00:00Z'), {
    name: 'Cookie banner',
    plugin_type: 'inline',
    description: 'A consent banner.',
  });
  addDemoPipelineItem(store, prickly, 'pipeline_import_apps', at('2026-02-13T12:00:00Z'), {
    name: 'CSV Import',
    plugin_type: 'custom',
    description: 'Imports events from CSV files.',
  });
  seedPricklySurveys(store, lab);

  // ---- Elsewhere Inc: the outsider's organization (the demo user is not a member) -----------------
  const elsewhere = store.addOrganization(
    {
      name: 'Elsewhere Inc',
      created_at: at('2026-03-01T08:00:00Z'),
      updated_at: at('2026-03-01T08:00:00Z'),
      customer_id: 'cus_ElsewhereDemo02',
    },
    { firstTeamName: null },
  );
  store.addMembership(elsewhere.id, OUTSIDER_USER_ID, LEVEL_OWNER, { joined_at: elsewhere.created_at });
  store.addMembership(elsewhere.id, users.erin, LEVEL_MEMBER, { joined_at: at('2026-03-02T08:00:00Z') });
  const away = store.addTeam(elsewhere.id, { name: 'Elsewhere Web', created_at: elsewhere.created_at });
  addDemoBatchExports(store, elsewhere, 2, '2026-03-01T08:00:00Z');
  store.addDomain(elsewhere.id, { domain: 'elsewhere.example' });
  store.addInvite(elsewhere.id, {
    target_email: 'friend@elsewhere.example',
    created_by_id: OUTSIDER_USER_ID,
    created_at: pendingInviteTime,
  });
  addDemoPipelineItem(store, elsewhere, 'pipeline_destinations', at('2026-03-03T10:00:00Z'), {
    name: 'Elsewhere webhook',
    plugin_type: 'repository',
    description: 'Send events to any HTTP endpoint.',
    url: 'https://github.com/PostHog/webhook-plugin',
    tag: 'v1.3.0',
    latest_tag: 'v1.3.0',
  });
  seedElsewhereSurveys(store, away);
}
