// Demo feature flags and surveys: linked, targeting and internal flags, creators and response counts.
import { DEMO_USER_ID, OUTSIDER_USER_ID, USER_IDS as users } from '../demo-users.ts';
import type { ReferenceStore } from '../store.ts';
import type { StoredTeam } from '../stored-records.ts';
import { shiftTimestamp as at } from '../time.ts';

/** A function adding flags to `team`, all created at `created`. */
function addSurveyFlags(store: ReferenceStore, team: StoredTeam, created: string) {
  return (key: string, name: string, filters: Record<string, unknown>) =>
    store.addFeatureFlag(team.id, { key, name, filters, created_at: created });
}

function personFilter(key: string, value: string) {
  return { groups: [{ properties: [{ key, type: 'person', value, operator: 'exact' }], rollout_percentage: 100 }] };
}

function hideAfterAnswering(surveyId: string) {
  const properties = ['dismissed', 'responded'].map((what) => ({
    key: `$survey_${what}/${surveyId}`,
    type: 'person',
    value: 'is_not_set',
    operator: 'is_not_set',
  }));
  return { groups: [{ variant: '', properties, rollout_percentage: 100 }] };
}

const NPS_QUESTIONS = [
  {
    type: 'rating',
    question: 'How likely are you to recommend us to a friend?',
    display: 'number',
    scale: 10,
    lowerBoundLabel: 'Unlikely',
    upperBoundLabel: 'Very likely',
  },
  { type: 'open', question: 'What is the main reason for your score?', optional: true },
];
const APPEARANCE = {
  backgroundColor: '#eeeded',
  submitButtonColor: 'black',
  ratingButtonColor: 'white',
  position: 'right',
  displayThankYouMessage: true,
  thankYouMessageHeader: 'Thank you for your feedback!',
};

/** Project "Hedgehog Web" (1) and "Hedgehog Mobile" (2). */
export function seedHedgehogSurveys(store: ReferenceStore, web: StoredTeam, mobile: StoredTeam): void {
  const webFlag = addSurveyFlags(store, web, at('2026-01-15T09:00:00Z'));
  const beta = webFlag('beta-dashboards', 'Beta dashboards', personFilter('email', 'beta@hedgehog.example'));
  Object.assign(beta, { version: 3, evaluation_tags: ['web', 'beta'], evaluation_runtime: 'client', has_encrypted_payloads: true });
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
    schedule: 'recurring',
    linked_insight_id: 12,
    response_sampling_start_date: at('2026-01-21T00:00:00Z'),
    response_sampling_interval_type: 'month',
    response_sampling_interval: 1,
    response_sampling_limit: 100,
    response_sampling_daily_limits: [{ date: '2026-01-21', daily_response_limit: 4, rollout_percentage: 10 }],
    enable_partial_responses: true,
    responses_count: 42,
  });
  nps.targeting_flag_id = webFlag(
    'survey-targeting-4f1c2a9e7b',
    'Targeting flag for survey Net Promoter Score',
    personFilter('plan', 'paid'),
  ).id;
  nps.internal_targeting_flag_id = webFlag(
    'survey-targeting-4f1c2a9e7b-custom',
    'Targeting flag for survey Net Promoter Score',
    hideAfterAnswering(nps.id),
  ).id;
  store.addSurvey(web.id, {
    name: 'Feature feedback',
    type: 'widget',
    questions: [{ type: 'open', question: 'What should we build next?' }],
    appearance: { ...APPEARANCE, widgetType: 'tab', widgetLabel: 'Feedback' },
    schedule: 'always',
    enable_iframe_embedding: true,
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
}

/** Project "Prickly Default project" (3). */
export function seedPricklySurveys(store: ReferenceStore, lab: StoredTeam): void {
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
}

/** The outsider's project "Elsewhere Web" (4). */
export function seedElsewhereSurveys(store: ReferenceStore, away: StoredTeam): void {
  const awayFlag = addSurveyFlags(store, away, at('2026-03-03T09:00:00Z'))('elsewhere-feedback', 'Elsewhere feedback', {
    groups: [{ properties: [], rollout_percentage: 100 }],
  });
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
