// The deterministic demo data: fixed timestamps, ids from the store's seeded stream (seeded before any
// request, so every start gives the same ids). Two organizations the demo user belongs to (owner of
// one, admin of the other) and one it does not (the outsider's), each with every family populated.
// The one exception to fixed timestamps: pending invites are dated at start-up (rounded down to the
// hour), because an invite expires 3 days after it is created.
import type { BatchExportDestination, PipelineFamily } from '../rest/types.ts';
import { DEMO_USER_ID, OUTSIDER_USER_ID } from './demo-users.ts';
import { LEVEL_ADMIN, LEVEL_MEMBER, LEVEL_OWNER, type StoredOrganization, type StoredTeam } from './records.ts';
import type { ReferenceStore } from './store.ts';
import { formatTimestamp } from './time.ts';

const HOUR = 60 * 60 * 1000;
const at = (iso: string, plusHours = 0) => formatTimestamp(new Date(Date.parse(iso) + plusHours * HOUR));

const DESTINATIONS: BatchExportDestination[] = [
  { type: 'S3', config: { bucket_name: 'hedgehog-exports', region: 'us-east-1', prefix: 'posthog/', file_format: 'Parquet', compression: 'zstd' } },
  { type: 'Snowflake', config: { account: 'hh12345.us-east-1', database: 'ANALYTICS', warehouse: 'COMPUTE_WH', schema: 'POSTHOG', table_name: 'events', user: 'posthog_export', role: 'EXPORTER' } },
  { type: 'Postgres', config: { host: 'db.hedgehog.example', port: 5432, database: 'analytics', schema: 'public', table_name: 'events', user: 'posthog', has_self_signed_cert: false } },
  { type: 'BigQuery', config: { project_id: 'hedgehog-analytics', dataset_id: 'posthog', table_id: 'events', use_json_type: true } },
  { type: 'Redshift', config: { host: 'warehouse.hedgehog.example', port: 5439, database: 'dev', schema: 'posthog', table_name: 'events', user: 'exporter' } },
  { type: 'HTTP', config: { url: 'https://ingest.hedgehog.example/v1/events' } },
];
const INTERVALS = ['hour', 'day', 'week', 'every 5 minutes', 'every 15 minutes'];
const INTERVAL_HOURS: Record<string, number> = { hour: 1, day: 24, week: 168, 'every 5 minutes': 1 / 12, 'every 15 minutes': 0.25 };
const RUN_STATUSES = ['Completed', 'Failed', 'Running', 'Cancelled', 'Completed'];

const PLUGIN_CAPABILITIES: Record<PipelineFamily, Record<string, unknown>> = {
  pipeline_destinations: { methods: ['composeWebhook'], jobs: [], scheduled_tasks: [] },
  pipeline_frontend_apps: { methods: [], jobs: [], scheduled_tasks: [] },
  pipeline_import_apps: { methods: [], jobs: ['importHistory'], scheduled_tasks: ['runEveryMinute'] },
};

/** `count` batch exports in `org`, created an hour apart; every third of the first twelve has runs. */
function addBatchExports(store: ReferenceStore, org: StoredOrganization, count: number, since: string): void {
  for (let i = 1; i <= count; i++) {
    const destination = DESTINATIONS[(i - 1) % DESTINATIONS.length] ?? DESTINATIONS[0]!;
    const model = i % 4 === 0 ? 'persons' : 'events';
    const interval = INTERVALS[(i - 1) % INTERVALS.length] ?? 'hour';
    const created = at(since, i);
    const paused = i % 6 === 0;
    const record = store.addBatchExport(org.id, {
      name: `${destination.type} ${model} export ${String(i).padStart(2, '0')}`,
      model,
      destination: structuredClone(destination),
      interval,
      paused,
      created_at: created,
      last_updated_at: at(created, 2),
      last_paused_at: paused ? at(created, 48) : null,
      start_at: i % 5 === 0 ? at(since, 24) : null,
      end_at: i % 10 === 0 ? at(since, 24 * 90) : null,
      hogql_query: i % 7 === 0 ? 'SELECT event, timestamp, distinct_id, properties FROM events' : null,
    });
    if (record.hogql_query) record.schema = { fields: [], values: {}, hogql_query: record.hogql_query };
    if (i <= 12 && i % 3 === 1) {
      const step = INTERVAL_HOURS[interval] ?? 1;
      // Oldest first, so the newest run ends up first in latest_runs.
      for (let r = 2; r >= 0; r--) {
        const start = at(created, 24 + r * step);
        const end = at(created, 24 + (r + 1) * step);
        const status = RUN_STATUSES[(i + r) % RUN_STATUSES.length] ?? 'Completed';
        const done = status !== 'Running';
        store.addBatchExportRun(record, {
          status,
          records_completed: done && status !== 'Failed' ? 1000 * (i + r) : null,
          latest_error: status === 'Failed' ? 'NoSuchBucket: The specified bucket does not exist' : null,
          data_interval_start: start,
          data_interval_end: end,
          cursor: null,
          created_at: end,
          finished_at: done ? at(end, 0.1) : null,
          last_updated_at: at(end, 0.1),
          records_total_count: 1000 * (i + r),
        });
      }
    }
  }
}

function addPipelineItem(
  store: ReferenceStore,
  org: StoredOrganization,
  family: PipelineFamily,
  created: string,
  fields: { name: string; plugin_type: string; description: string; url?: string | null; tag?: string | null; latest_tag?: string | null; in_use?: boolean; source?: Record<string, string> },
): void {
  const item = store.addPipelineItem(org.id, family, {
    icon: fields.url ? `${fields.url.replace('github.com', 'raw.githubusercontent.com')}/main/logo.png` : null,
    config_schema: [{ key: 'url', name: 'Target URL', type: 'string', required: true }],
    capabilities: structuredClone(PLUGIN_CAPABILITIES[family]),
    metrics: {},
    public_jobs: family === 'pipeline_import_apps' ? { importHistory: { payload: { dateFrom: { type: 'date', required: true } } } } : {},
    created_at: created,
    in_use: fields.in_use ?? false,
    ...fields,
  });
  store.addActivity({ organization_id: org.id, family, item_id: item.id, user_id: DEMO_USER_ID, activity: 'created', detail: { name: item.name, changes: [] }, created_at: created });
}

function addSurveyFlags(store: ReferenceStore, team: StoredTeam, created: string) {
  const flag = (key: string, name: string, filters: Record<string, unknown>) => store.addFeatureFlag(team.id, { key, name, filters, created_at: created });
  return flag;
}

function personFilter(key: string, value: string) {
  return { groups: [{ properties: [{ key, type: 'person', value, operator: 'exact' }], rollout_percentage: 100 }] };
}

function hideAfterAnswering(surveyId: string) {
  const properties = ['dismissed', 'responded'].map((what) => ({ key: `$survey_${what}/${surveyId}`, type: 'person', value: 'is_not_set', operator: 'is_not_set' }));
  return { groups: [{ variant: '', properties, rollout_percentage: 100 }] };
}

const NPS_QUESTIONS = [
  { type: 'rating', question: 'How likely are you to recommend us to a friend?', display: 'number', scale: 10, lowerBoundLabel: 'Unlikely', upperBoundLabel: 'Very likely' },
  { type: 'open', question: 'What is the main reason for your score?', optional: true },
];
const APPEARANCE = { backgroundColor: '#eeeded', submitButtonColor: 'black', ratingButtonColor: 'white', position: 'right', displayThankYouMessage: true, thankYouMessageHeader: 'Thank you for your feedback!' };

export function seedDemoData(store: ReferenceStore): void {
  const users = { alice: 2, bob: 3, carol: 4, dave: 5, erin: 7 };
  const pendingInviteTime = formatTimestamp(new Date(Math.floor(store.nowDate().getTime() / HOUR) * HOUR));

  // ---- Hedgehog Analytics: the demo user's own organization, with the 35 batch exports -----------
  const hedgehog = store.addOrganization(
    { name: 'Hedgehog Analytics', created_at: at('2026-01-05T10:00:00Z'), updated_at: at('2026-01-05T10:00:00Z'), customer_id: 'cus_HedgehogDemo01', enforce_2fa: false },
    { firstTeamName: null },
  );
  store.addMembership(hedgehog.id, DEMO_USER_ID, LEVEL_OWNER, { joined_at: hedgehog.created_at });
  store.addMembership(hedgehog.id, users.alice, LEVEL_ADMIN, { joined_at: at('2026-01-06T09:30:00Z') });
  store.addMembership(hedgehog.id, users.bob, LEVEL_MEMBER, { joined_at: at('2026-01-07T14:15:00Z') });
  const web = store.addTeam(hedgehog.id, {
    name: 'Hedgehog Web',
    created_at: hedgehog.created_at,
    completed_snapshot_onboarding: true,
    has_completed_onboarding_for: { product_analytics: true, surveys: true },
    ingested_event: true,
  });
  const mobile = store.addTeam(hedgehog.id, { name: 'Hedgehog Mobile', created_at: at('2026-01-12T08:00:00Z'), timezone: 'Europe/Berlin', ingested_event: true });
  addBatchExports(store, hedgehog, 35, '2026-01-05T10:00:00Z');
  store.addDomain(hedgehog.id, {
    domain: 'hedgehog.example',
    verified_at: at('2026-01-08T12:00:00Z'),
    jit_provisioning_enabled: true,
    sso_enforcement: 'saml',
    saml_entity_id: 'https://idp.hedgehog.example/saml/metadata',
    saml_acs_url: 'https://us.posthog.com/complete/saml/',
    saml_x509_cert: '-----BEGIN CERTIFICATE-----\nMIICmjCCAYICCQDemoHedgehogCertificateForTheReferenceApi\n-----END CERTIFICATE-----',
  });
  store.addDomain(hedgehog.id, { domain: 'hedgehog-mail.example' });
  store.addInvite(hedgehog.id, { target_email: 'late@hedgehog.example', first_name: 'Lara', created_by_id: DEMO_USER_ID, created_at: at('2026-01-02T09:00:00Z'), emailing_attempt_made: true });
  store.addInvite(hedgehog.id, { target_email: 'newbie@hedgehog.example', first_name: 'Nina', message: 'Welcome aboard!', created_by_id: DEMO_USER_ID, created_at: pendingInviteTime });
  store.addInvite(hedgehog.id, { target_email: 'lead@hedgehog.example', first_name: 'Leo', level: LEVEL_ADMIN, created_by_id: users.alice, created_at: pendingInviteTime });
  addPipelineItem(store, hedgehog, 'pipeline_destinations', at('2026-01-09T10:00:00Z'), { name: 'Webhook', plugin_type: 'repository', description: 'Send events to any HTTP endpoint.', url: 'https://github.com/PostHog/webhook-plugin', tag: 'v1.2.0', latest_tag: 'v1.3.0', in_use: true });
  addPipelineItem(store, hedgehog, 'pipeline_destinations', at('2026-01-09T11:00:00Z'), { name: 'Customer.io', plugin_type: 'repository', description: 'Send events to Customer.io.', url: 'https://github.com/PostHog/customerio-plugin', tag: 'v0.9.1', latest_tag: 'v0.9.1' });
  addPipelineItem(store, hedgehog, 'pipeline_destinations', at('2026-01-09T12:00:00Z'), { name: 'Local debugger', plugin_type: 'local', description: 'Logs every event it receives.', url: 'file:../debug-plugin' });
  addPipelineItem(store, hedgehog, 'pipeline_frontend_apps', at('2026-01-10T10:00:00Z'), { name: 'Notification Bar', plugin_type: 'repository', description: 'Show a notification bar on your site.', url: 'https://github.com/PostHog/notification-bar-app', tag: 'a1b2c3d', latest_tag: 'e4f5a6b', in_use: true });
  addPipelineItem(store, hedgehog, 'pipeline_frontend_apps', at('2026-01-10T11:00:00Z'), {
    name: 'Bug Report Widget',
    plugin_type: 'source',
    description: 'Lets visitors report bugs.',
    source: { 'plugin.json': '{\n  "name": "Bug Report Widget",\n  "config": []\n}', 'site.ts': 'export function inject({ config, posthog }) {\n  // render the widget\n}\n' },
  });
  addPipelineItem(store, hedgehog, 'pipeline_import_apps', at('2026-01-11T10:00:00Z'), { name: 'Salesforce Import', plugin_type: 'custom', description: 'Imports Salesforce accounts as persons.', in_use: true });
  addPipelineItem(store, hedgehog, 'pipeline_import_apps', at('2026-01-11T11:00:00Z'), { name: 'Redshift Import', plugin_type: 'repository', description: 'Imports rows from a Redshift table.', url: 'https://github.com/PostHog/posthog-redshift-import-plugin', tag: 'v0.3.0', latest_tag: 'v0.4.0' });

  // Surveys and flags of the two Hedgehog projects.
  const webFlag = addSurveyFlags(store, web, at('2026-01-15T09:00:00Z'));
  const beta = webFlag('beta-dashboards', 'Beta dashboards', personFilter('email', 'beta@hedgehog.example'));
  webFlag('new-onboarding', 'New onboarding flow', { groups: [{ properties: [], rollout_percentage: 50 }] });
  const nps = store.addSurvey(web.id, {
    name: 'Net Promoter Score',
    description: 'Quarterly NPS for active users.',
    type: 'popover',
    linked_flag_id: beta.id,
    questions: NPS_QUESTIONS,
    conditions: { url: 'hedgehog.example/app', selector: '', seenSurveyWaitPeriodInDays: 30 },
    appearance: APPEARANCE,
    created_at: at('2026-01-20T10:00:00Z'),
    created_by_id: DEMO_USER_ID,
    start_date: at('2026-01-21T00:00:00Z'),
    responses_limit: 500,
    iteration_count: 4,
    iteration_frequency_days: 90,
    iteration_start_dates: [at('2026-01-21T00:00:00Z'), at('2026-04-21T00:00:00Z'), at('2026-07-20T00:00:00Z'), at('2026-10-18T00:00:00Z')],
    current_iteration: 4,
    current_iteration_start_date: at('2026-10-18T00:00:00Z'),
    responses_count: 42,
  });
  nps.targeting_flag_id = webFlag('survey-targeting-4f1c2a9e7b', 'Targeting flag for survey Net Promoter Score', personFilter('plan', 'paid')).id;
  nps.internal_targeting_flag_id = webFlag('survey-targeting-4f1c2a9e7b-custom', 'Targeting flag for survey Net Promoter Score', hideAfterAnswering(nps.id)).id;
  store.addSurvey(web.id, {
    name: 'Feature feedback',
    type: 'widget',
    questions: [{ type: 'open', question: 'What should we build next?' }],
    appearance: { ...APPEARANCE, widgetType: 'tab', widgetLabel: 'Feedback' },
    created_at: at('2026-02-02T10:00:00Z'),
    created_by_id: users.alice,
    start_date: at('2026-02-03T00:00:00Z'),
    responses_count: 7,
  });
  store.addSurvey(web.id, {
    name: 'Old onboarding survey',
    type: 'popover',
    questions: [{ type: 'single_choice', question: 'How did you hear about us?', choices: ['Search', 'Friend', 'Conference'] }],
    created_at: at('2026-01-16T10:00:00Z'),
    created_by_id: users.bob,
    start_date: at('2026-01-16T12:00:00Z'),
    end_date: at('2026-02-16T12:00:00Z'),
    archived: true,
  });
  const mobileFlag = addSurveyFlags(store, mobile, at('2026-01-12T09:00:00Z'));
  const rating = mobileFlag('mobile-rating-prompt', 'Mobile rating prompt', { groups: [{ properties: [], rollout_percentage: 20 }] });
  store.addSurvey(mobile.id, {
    name: 'App store rating',
    type: 'api',
    linked_flag_id: rating.id,
    questions: [{ type: 'rating', question: 'How would you rate the app?', display: 'emoji', scale: 5 }],
    created_at: at('2026-03-01T10:00:00Z'),
    created_by_id: DEMO_USER_ID,
    start_date: at('2026-03-02T00:00:00Z'),
    responses_count: 12,
  });
  store.addSurvey(mobile.id, {
    name: 'Churn interview',
    description: 'Invite churned users to a call.',
    type: 'external_survey',
    questions: [{ type: 'link', question: 'Would you talk to us for 15 minutes?', link: 'https://cal.hedgehog.example/churn' }],
    created_at: at('2026-03-05T10:00:00Z'),
    created_by_id: users.alice,
  });

  // ---- Prickly Labs: the demo user is an admin here ------------------------------------------------
  const prickly = store.addOrganization(
    { name: 'Prickly Labs', created_at: at('2026-02-10T08:00:00Z'), updated_at: at('2026-03-01T08:00:00Z'), is_member_join_email_enabled: false, enforce_2fa: true, plugins_access_level: 3 },
    { firstTeamName: null },
  );
  store.addMembership(prickly.id, users.carol, LEVEL_OWNER, { joined_at: prickly.created_at });
  store.addMembership(prickly.id, DEMO_USER_ID, LEVEL_ADMIN, { joined_at: at('2026-02-11T09:00:00Z') });
  store.addMembership(prickly.id, users.dave, LEVEL_MEMBER, { joined_at: at('2026-02-12T09:00:00Z') });
  const lab = store.addTeam(prickly.id, { name: 'Prickly Default project', created_at: prickly.created_at, timezone: 'America/New_York' });
  addBatchExports(store, prickly, 3, '2026-02-10T08:00:00Z');
  store.addDomain(prickly.id, { domain: 'prickly.example', verified_at: at('2026-02-11T10:00:00Z'), sso_enforcement: 'google-oauth2' });
  store.addInvite(prickly.id, { target_email: 'intern@prickly.example', first_name: 'Ivy', created_by_id: users.carol, created_at: pendingInviteTime });
  addPipelineItem(store, prickly, 'pipeline_destinations', at('2026-02-13T10:00:00Z'), { name: 'Slack alerts', plugin_type: 'repository', description: 'Posts chosen events to Slack.', url: 'https://github.com/PostHog/slack-plugin', tag: 'v1.0.0', latest_tag: 'v1.0.0', in_use: true });
  addPipelineItem(store, prickly, 'pipeline_frontend_apps', at('2026-02-13T11:00:00Z'), { name: 'Cookie banner', plugin_type: 'inline', description: 'A consent banner.' });
  addPipelineItem(store, prickly, 'pipeline_import_apps', at('2026-02-13T12:00:00Z'), { name: 'CSV Import', plugin_type: 'custom', description: 'Imports events from CSV files.' });
  const labFlag = addSurveyFlags(store, lab, at('2026-02-14T09:00:00Z'));
  const labBeta = labFlag('lab-beta', 'Lab beta', { groups: [{ properties: [], rollout_percentage: 10 }] });
  store.addSurvey(lab.id, {
    name: 'Lab satisfaction',
    type: 'popover',
    linked_flag_id: labBeta.id,
    questions: [{ type: 'rating', question: 'How happy are you with the lab tools?', display: 'number', scale: 5 }],
    created_at: at('2026-02-15T10:00:00Z'),
    created_by_id: users.carol,
    start_date: at('2026-02-16T00:00:00Z'),
    responses_count: 3,
  });

  // ---- Elsewhere Inc: the outsider's organization (the demo user is not a member) -----------------
  const elsewhere = store.addOrganization(
    { name: 'Elsewhere Inc', created_at: at('2026-03-01T08:00:00Z'), updated_at: at('2026-03-01T08:00:00Z'), customer_id: 'cus_ElsewhereDemo02' },
    { firstTeamName: null },
  );
  store.addMembership(elsewhere.id, OUTSIDER_USER_ID, LEVEL_OWNER, { joined_at: elsewhere.created_at });
  store.addMembership(elsewhere.id, users.erin, LEVEL_MEMBER, { joined_at: at('2026-03-02T08:00:00Z') });
  const away = store.addTeam(elsewhere.id, { name: 'Elsewhere Web', created_at: elsewhere.created_at });
  addBatchExports(store, elsewhere, 2, '2026-03-01T08:00:00Z');
  store.addDomain(elsewhere.id, { domain: 'elsewhere.example' });
  store.addInvite(elsewhere.id, { target_email: 'friend@elsewhere.example', created_by_id: OUTSIDER_USER_ID, created_at: pendingInviteTime });
  addPipelineItem(store, elsewhere, 'pipeline_destinations', at('2026-03-03T10:00:00Z'), { name: 'Elsewhere webhook', plugin_type: 'repository', description: 'Send events to any HTTP endpoint.', url: 'https://github.com/PostHog/webhook-plugin', tag: 'v1.3.0', latest_tag: 'v1.3.0' });
  const awayFlag = addSurveyFlags(store, away, at('2026-03-03T09:00:00Z'))('elsewhere-feedback', 'Elsewhere feedback', { groups: [{ properties: [], rollout_percentage: 100 }] });
  store.addSurvey(away.id, {
    name: 'Outsider feedback',
    type: 'popover',
    linked_flag_id: awayFlag.id,
    questions: [{ type: 'open', question: 'Anything we can improve?' }],
    created_at: at('2026-03-04T10:00:00Z'),
    created_by_id: OUTSIDER_USER_ID,
    responses_count: 5,
  });
}
