import type { SurveyRecord } from '../loaders/tagged-records.ts';
import { builder } from './builder.ts';
import { listFields } from './connection-types.ts';
import { requiresScope } from './naming.ts';
import { registerNode, retrieveCall } from './node-registry.ts';
import { nodeType } from './node-type.ts';
import { FeatureFlagRef, ProjectRef, SurveyRef, UserRef } from './refs.ts';
import { type RestFieldSpec, restFields } from './rest-fields.ts';

const READ = requiresScope('survey:read');

/** Writable fields that read and write alike: shared with the survey mutations' inputs. */
export const SURVEY_CONTENT_FIELDS = {
  questions: ['JSON', 'The questions.'],
  conditions: ['JSON', 'Display conditions.'],
  appearance: ['JSON', 'Appearance settings.'],
  start_date: ['DateTime', 'When the survey starts.'],
  end_date: ['DateTime', 'When the survey ends.'],
  archived: ['Boolean', 'Whether the survey is archived.'],
  responses_limit: ['Int', 'Stop after this many responses.'],
  iteration_count: ['Int', 'How many times the survey repeats.'],
  iteration_frequency_days: ['Int', 'Days between iterations.'],
  iteration_start_dates: [['DateTime'], 'Start dates of the iterations.'],
  current_iteration: ['Int', 'The current iteration.'],
  current_iteration_start_date: ['DateTime', 'When the current iteration started.'],
} satisfies Partial<Record<keyof SurveyRecord, RestFieldSpec>>;

nodeType(SurveyRef, {
  description: `A survey shown to users of a project. ${READ}`,
  idParts: (s) => [s.$project, s.id],
  fields: (t) => ({
    databaseId: t.field({ type: 'UUID', nullable: false, description: 'The REST `id`.', resolve: (s) => s.id }),
    ...restFields<SurveyRecord>(t, {
      name: ['String', 'Name, unique within the project.'],
      description: ['String', 'Description.'],
      type: ['String', 'How it is shown, e.g. `popover`, `widget`, `api`, `external_survey`.'],
      linked_flag_id: ['Int', 'The REST id of the linked feature flag.'],
      targeting_flag_id: ['Int', 'The REST id of the targeting flag (returned by create and update).'],
      targeting_flag_filters: ['JSON', 'Filters of the targeting flag (returned by create and update).'],
      remove_targeting_flag: ['Boolean', 'Whether the targeting flag is to be removed (returned by create and update).'],
      created_at: ['DateTime', 'When the survey was created.'],
      ...SURVEY_CONTENT_FIELDS,
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
  shape: ['string', 'uuid'],
  call: ([projectId, id]) => retrieveCall('Survey', projectId as string, id as string),
  load: ([projectId, id], context) => context.loaders.surveys.byId(projectId as string, id as string),
});

listFields(ProjectRef, {
  ref: SurveyRef,
  typeName: 'Survey',
  listField: 'surveys',
  lookupField: 'survey',
  what: 'surveys',
  parentNoun: 'project',
  scope: READ,
  parentId: (project) => project.projectId,
  loader: (context) => context.loaders.surveys,
});
