// /api/projects/:project_id/surveys: CRUD plus responses_count (seed 4.7).
import { validationError } from '../api-errors.ts';
import { found, normalizeUuid, requireProject } from '../lookup.ts';
import { listReply } from '../pagination.ts';
import { created, noContent, ok, type Route, type RouteContext } from '../router.ts';
import { serializeSurvey } from '../serializers.ts';
import type { ReferenceStore } from '../store.ts';
import type { StoredFeatureFlag, StoredSurvey, StoredTeam } from '../stored-records.ts';
import { type Fields, isPlainObject, type Schema, validateFields } from '../validation.ts';

/** The live service's survey types (the seed shows only `popover`). */
const SURVEY_TYPES = ['popover', 'widget', 'external_survey', 'api'];

/**
 * Writable fields (seed 4.7). `type` is required on create, as in the live service (its model field
 * has no default); 400 is the live max length of a name.
 */
const SURVEY_FIELDS: Schema = {
  name: { kind: 'string', required: true, maxLength: 400 },
  description: { kind: 'string', blank: true },
  type: { kind: 'choice', choices: SURVEY_TYPES, required: true },
  linked_flag_id: { kind: 'int32', nullable: true },
  targeting_flag_id: { kind: 'int32', nullable: true },
  targeting_flag_filters: { kind: 'object', nullable: true },
  remove_targeting_flag: { kind: 'boolean', nullable: true },
  questions: { kind: 'json', nullable: true },
  conditions: { kind: 'object', nullable: true },
  appearance: { kind: 'object', nullable: true },
  start_date: { kind: 'datetime', nullable: true },
  end_date: { kind: 'datetime', nullable: true },
  archived: { kind: 'boolean' },
  responses_limit: { kind: 'int32', nullable: true },
  iteration_count: { kind: 'int32', nullable: true },
  iteration_frequency_days: { kind: 'int32', nullable: true },
  iteration_start_dates: { kind: 'datetime_list', nullable: true },
  current_iteration: { kind: 'int32', nullable: true },
  current_iteration_start_date: { kind: 'datetime', nullable: true },
  schedule: { kind: 'choice', choices: ['once', 'recurring', 'always'], nullable: true },
  linked_insight_id: { kind: 'int32', nullable: true },
  response_sampling_start_date: { kind: 'datetime', nullable: true },
  response_sampling_interval_type: { kind: 'choice', choices: ['day', 'week', 'month'], nullable: true },
  response_sampling_interval: { kind: 'int32', nullable: true },
  response_sampling_limit: { kind: 'int32', nullable: true },
  response_sampling_daily_limits: { kind: 'json', nullable: true },
  enable_partial_responses: { kind: 'boolean', nullable: true },
  enable_iframe_embedding: { kind: 'boolean', nullable: true },
};

const HEX = '0123456789abcdef';

/** The checks that need the store, in the live serializer's order. */
function checkSurveyFields(store: ReferenceStore, team: StoredTeam, fields: Fields, current?: StoredSurvey): void {
  if (fields.name !== undefined && store.surveysOf(team.id).some((s) => s.name === fields.name && s.id !== current?.id)) {
    throw validationError('unique', 'There is already another survey with this name.', 'name');
  }
  for (const attr of ['linked_flag_id', 'targeting_flag_id'] as const) {
    const id = fields[attr];
    if (id === undefined || id === null) continue;
    const flag = store.featureFlags.get(Number(id));
    if (!flag || flag.team_id !== team.id || flag.deleted) {
      throw validationError('does_not_exist', `Invalid pk "${String(id)}" - object does not exist.`, attr);
    }
  }
  const filters = fields.targeting_flag_filters;
  if (isPlainObject(filters) && !Array.isArray(filters.groups)) {
    throw validationError('invalid_input', 'Targeting flag filters must contain a list of groups.', 'targeting_flag_filters');
  }
  const questions = fields.questions;
  if (questions !== undefined && questions !== null) {
    if (!Array.isArray(questions) || !questions.every(isPlainObject)) {
      throw validationError('invalid_input', 'Questions must be a list of objects', 'questions');
    }
    if (questions.some((q) => typeof q.question !== 'string' || q.question.trim() === '')) {
      throw validationError('invalid_input', 'Question text is required', 'questions');
    }
  }
}

function addTargetingFlag(
  store: ReferenceStore,
  team: StoredTeam,
  surveyName: string,
  filters: Record<string, unknown>,
  suffix = '',
): StoredFeatureFlag {
  return store.addFeatureFlag(team.id, {
    key: `survey-targeting-${store.ids.token(10, HEX)}${suffix}`,
    name: `Targeting flag for survey ${surveyName}`,
    filters: structuredClone(filters),
  });
}

/** The live service's flag handling: remove_targeting_flag wins, else targeting_flag_filters creates or updates. */
function applyFlags(store: ReferenceStore, team: StoredTeam, survey: StoredSurvey, fields: Fields): void {
  if (fields.linked_flag_id !== undefined) survey.linked_flag_id = fields.linked_flag_id as number | null;
  if (fields.targeting_flag_id !== undefined) survey.targeting_flag_id = fields.targeting_flag_id as number | null;
  const existing = survey.targeting_flag_id === null ? undefined : store.featureFlags.get(survey.targeting_flag_id);
  if (fields.remove_targeting_flag === true) {
    if (existing) existing.deleted = true;
    survey.targeting_flag_id = null;
  } else if (isPlainObject(fields.targeting_flag_filters)) {
    if (existing) existing.filters = structuredClone(fields.targeting_flag_filters);
    else survey.targeting_flag_id = addTargetingFlag(store, team, survey.name, fields.targeting_flag_filters).id;
  }
  // Once launched, a survey gets an internal flag that hides it from people who answered or dismissed
  // it; it is switched off when the survey ends or is archived (live behaviour).
  if (survey.start_date && survey.internal_targeting_flag_id === null) {
    const properties = ['dismissed', 'responded'].map((what) => ({
      key: `$survey_${what}/${survey.id}`,
      type: 'person',
      value: 'is_not_set',
      operator: 'is_not_set',
    }));
    survey.internal_targeting_flag_id = addTargetingFlag(
      store,
      team,
      survey.name,
      { groups: [{ variant: '', properties, rollout_percentage: 100 }] },
      '-custom',
    ).id;
  }
  const internal = survey.internal_targeting_flag_id === null ? undefined : store.featureFlags.get(survey.internal_targeting_flag_id);
  if (internal) internal.active = !survey.archived && !survey.end_date;
}

const SCALAR_FIELDS = [
  'name',
  'description',
  'type',
  'questions',
  'conditions',
  'appearance',
  'start_date',
  'end_date',
  'archived',
  'responses_limit',
  'iteration_count',
  'iteration_frequency_days',
  'iteration_start_dates',
  'current_iteration',
  'current_iteration_start_date',
  'schedule',
  'linked_insight_id',
  'response_sampling_start_date',
  'response_sampling_interval_type',
  'response_sampling_interval',
  'response_sampling_limit',
  'response_sampling_daily_limits',
  'enable_partial_responses',
  'enable_iframe_embedding',
] as const;

function applyScalars(survey: StoredSurvey, fields: Fields): void {
  for (const field of SCALAR_FIELDS) if (fields[field] !== undefined) Object.assign(survey, { [field]: fields[field] });
}

function findSurvey(ctx: RouteContext): { team: StoredTeam; survey: StoredSurvey } {
  const { team } = requireProject(ctx);
  const survey = ctx.store.surveys.get(normalizeUuid(ctx.params.id ?? '') ?? '');
  return { team, survey: found(survey?.team_id === team.id ? survey : undefined) };
}

function list(ctx: RouteContext) {
  const { team } = requireProject(ctx);
  return listReply(ctx, ctx.store.surveysOf(team.id), (survey) => serializeSurvey(ctx.store, survey));
}

function create(ctx: RouteContext) {
  const { team } = requireProject(ctx);
  const fields = validateFields(ctx.body, SURVEY_FIELDS, false);
  checkSurveyFields(ctx.store, team, fields);
  const survey = ctx.store.addSurvey(team.id, { name: String(fields.name), created_by_id: ctx.user.id });
  applyScalars(survey, fields);
  applyFlags(ctx.store, team, survey, fields);
  return created(serializeSurvey(ctx.store, survey, true));
}

function retrieve(ctx: RouteContext) {
  return ok(serializeSurvey(ctx.store, findSurvey(ctx).survey));
}

function update(ctx: RouteContext) {
  const { team, survey } = findSurvey(ctx);
  const fields = validateFields(ctx.body, SURVEY_FIELDS, true);
  checkSurveyFields(ctx.store, team, fields, survey);
  applyScalars(survey, fields);
  applyFlags(ctx.store, team, survey, fields);
  return ok(serializeSurvey(ctx.store, survey, true));
}

/** Deleting a survey deletes its targeting and internal flags too (the linked flag stays), as live. */
function destroy(ctx: RouteContext) {
  const { survey } = findSurvey(ctx);
  for (const id of [survey.targeting_flag_id, survey.internal_targeting_flag_id]) {
    const flag = id === null ? undefined : ctx.store.featureFlags.get(id);
    if (flag) flag.deleted = true;
  }
  ctx.store.surveys.delete(survey.id);
  return noContent();
}

/**
 * Live shape: `{"<survey uuid>": count}` for each survey with responses. The seed says "in the Survey
 * shape", which cannot carry counts; the seed shape is therefore every Survey field (null) plus the
 * same `uuid: count` entries, so clients reading either shape find the counts.
 */
function responsesCount(ctx: RouteContext) {
  const { team } = requireProject(ctx);
  const counts: Record<string, number> = {};
  for (const survey of ctx.store.surveysOf(team.id)) if (survey.responses_count > 0) counts[survey.id] = survey.responses_count;
  if (ctx.settings.liveShapes) return ok(counts);
  const blank = Object.fromEntries(Object.keys(serializeSurvey(ctx.store, BLANK_SURVEY)).map((key) => [key, null]));
  return ok({ ...blank, ...counts });
}

/** Only used for its keys: the Survey shape's field names. */
const BLANK_SURVEY: StoredSurvey = {
  id: '',
  name: '',
  description: '',
  type: '',
  linked_flag_id: null,
  targeting_flag_id: null,
  internal_targeting_flag_id: null,
  questions: null,
  conditions: null,
  appearance: null,
  created_at: '',
  created_by_id: null,
  start_date: null,
  end_date: null,
  archived: false,
  responses_limit: null,
  iteration_count: null,
  iteration_frequency_days: null,
  iteration_start_dates: null,
  current_iteration: null,
  current_iteration_start_date: null,
  schedule: null,
  linked_insight_id: null,
  response_sampling_start_date: null,
  response_sampling_interval_type: null,
  response_sampling_interval: null,
  response_sampling_limit: null,
  response_sampling_daily_limits: null,
  enable_partial_responses: null,
  enable_iframe_embedding: null,
  user_access_level: null,
  team_id: 0,
  responses_count: 0,
};

const base = '/api/projects/:project_id/surveys';
export const surveyRoutes: Route[] = [
  { path: base, scope: 'survey', handlers: { GET: list, POST: create } },
  { path: `${base}/responses_count`, scope: 'survey', handlers: { GET: responsesCount } },
  { path: `${base}/:id`, scope: 'survey', handlers: { GET: retrieve, PATCH: update, DELETE: destroy } },
];
