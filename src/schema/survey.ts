import type { SurveyRecord } from '../loaders/tagged-records.ts';
import { registerNode, retrieveCall } from './node-registry.ts';
import { nodeType } from './node-type.ts';
import { FeatureFlagRef, SurveyRef, UserRef } from './refs.ts';
import { type RestFieldTable, restFields } from './rest-fields.ts';
import { connectionTypes } from './rest-list-fields.ts';
import { requiresScope } from './scopes.ts';

const READ = requiresScope('survey:read');

/** Writable fields that read and write alike: shared with the survey mutations' inputs. */
export const SURVEY_CONTENT_FIELDS = {
  questions: ['questions', 'JSON', 'The questions.'],
  conditions: ['conditions', 'JSON', 'Display conditions.'],
  appearance: ['appearance', 'JSON', 'Appearance settings.'],
  startDate: ['start_date', 'DateTime', 'When the survey starts.'],
  endDate: ['end_date', 'DateTime', 'When the survey ends.'],
  archived: ['archived', 'Boolean', 'Whether the survey is archived.'],
  responsesLimit: ['responses_limit', 'Int', 'Stop after this many responses.'],
  iterationCount: ['iteration_count', 'Int', 'How many times the survey repeats.'],
  iterationFrequencyDays: ['iteration_frequency_days', 'Int', 'Days between iterations.'],
  iterationStartDates: ['iteration_start_dates', ['DateTime'], 'Start dates of the iterations.'],
  currentIteration: ['current_iteration', 'Int', 'The current iteration.'],
  currentIterationStartDate: ['current_iteration_start_date', 'DateTime', 'When the current iteration started.'],
  schedule: ['schedule', 'String', 'How often the survey is shown: `once`, `recurring` or `always`.'],
  linkedInsightId: ['linked_insight_id', 'Int', 'The REST id of the insight the survey is linked to.'],
  responseSamplingStartDate: ['response_sampling_start_date', 'DateTime', 'When response sampling starts.'],
  responseSamplingIntervalType: [
    'response_sampling_interval_type',
    'String',
    'The unit of the sampling interval: `day`, `week` or `month`.',
  ],
  responseSamplingInterval: ['response_sampling_interval', 'Int', 'The length of the sampling interval, in its unit.'],
  responseSamplingLimit: ['response_sampling_limit', 'Int', 'Responses to collect per sampling interval.'],
  responseSamplingDailyLimits: ['response_sampling_daily_limits', 'JSON', 'The daily response limits the sampling works out.'],
  enablePartialResponses: ['enable_partial_responses', 'Boolean', 'Whether unfinished responses are kept.'],
  enableIframeEmbedding: ['enable_iframe_embedding', 'Boolean', 'Whether the survey may be embedded in an iframe.'],
} satisfies RestFieldTable<SurveyRecord>;

nodeType(SurveyRef, {
  description: `A survey shown to users of a project. ${READ}`,
  idParts: (s) => [s.$project, s.id],
  fields: (t) => ({
    databaseId: t.field({ type: 'UUID', nullable: false, description: 'The REST `id`.', resolve: (s) => s.id }),
    ...restFields<SurveyRecord>(t, {
      name: ['name', 'String', 'Name, unique within the project.'],
      description: ['description', 'String', 'Description.'],
      type: ['type', 'String', 'How it is shown, e.g. `popover`, `widget`, `api`, `external_survey`.'],
      linkedFlagId: ['linked_flag_id', 'Int', 'The REST id of the linked feature flag.'],
      targetingFlagId: ['targeting_flag_id', 'Int', 'The REST id of the targeting flag (returned by create and update).'],
      targetingFlagFilters: ['targeting_flag_filters', 'JSON', 'Filters of the targeting flag (returned by create and update).'],
      removeTargetingFlag: [
        'remove_targeting_flag',
        'Boolean',
        'Whether the targeting flag is to be removed (returned by create and update).',
      ],
      createdAt: ['created_at', 'DateTime', 'When the survey was created.'],
      ...SURVEY_CONTENT_FIELDS,
      featureFlagKeys: ['feature_flag_keys', ['JSON'], 'The keys of the flags the survey uses, as `{key, value}` pairs.'],
      userAccessLevel: ['user_access_level', 'String', "The caller's access level to the survey, e.g. `viewer`, `editor`."],
    }),
    linkedFlag: t.field({ type: FeatureFlagRef, description: 'The linked feature flag.', resolve: (s) => s.linked_flag }),
    targetingFlag: t.field({ type: FeatureFlagRef, description: 'The targeting flag.', resolve: (s) => s.targeting_flag }),
    internalTargetingFlag: t.field({
      type: FeatureFlagRef,
      description: 'The internal targeting flag (returned by list and retrieve).',
      resolve: (s) => s.internal_targeting_flag,
    }),
    createdBy: t.field({ type: UserRef, description: 'Who created the survey.', resolve: (s) => s.created_by }),
  }),
});

registerNode('Survey', {
  shape: ['project', 'uuid'],
  call: ([projectId, id]) => retrieveCall('Survey', projectId as string, id as string),
  load: ([projectId, id], context) => context.loaders.surveys.byId(projectId as string, id as string),
});

export const SurveyConnection = connectionTypes(SurveyRef, { connection: 'SurveyConnection', edge: 'SurveyEdge', what: 'surveys' });
