// createSurvey, updateSurvey, deleteSurvey (seed 4.7): surveys live in a project.
import type { SurveyRecord } from '../../loaders/tagged-records.ts';
import type { Survey } from '../../wire/rest-types.ts';
import { SurveyRef } from '../refs.ts';
import type { RestInputTable } from '../rest-fields.ts';
import { SURVEY_CONTENT_FIELDS } from '../survey.ts';
import { createMutation, deleteMutation, type RecordKind, updateMutation } from './record-mutations.ts';

const SURVEY: RecordKind<Survey, SurveyRecord> = {
  ref: SurveyRef,
  field: 'survey',
  noun: 'survey',
  scope: 'survey:write',
  parent: { typeName: 'Project', inputField: 'projectId', noun: 'project' },
  loader: (context) => context.loaders.surveys,
};

const FIELDS: RestInputTable = {
  name: ['name', 'String', 'Name, unique within the project.'],
  description: ['description', 'String', 'Description.'],
  type: ['type', 'String', 'How it is shown: `popover`, `widget`, `api` or `external_survey`.'],
  linkedFlagId: ['linked_flag_id', 'Int', 'The REST id of the feature flag to link.'],
  targetingFlagId: ['targeting_flag_id', 'Int', 'The REST id of the targeting flag.'],
  targetingFlagFilters: ['targeting_flag_filters', 'JSON', 'Filters of the targeting flag (creates or updates it).'],
  removeTargetingFlag: ['remove_targeting_flag', 'Boolean', 'Whether to remove the targeting flag.'],
  ...SURVEY_CONTENT_FIELDS,
};

createMutation(SURVEY, {
  names: ['createSurvey', 'CreateSurveyInput', 'CreateSurveyPayload', 'CreateSurveyResult'],
  description: 'Creates a survey in a project.',
  fields: FIELDS,
  send: (rest, projectId, body) => rest.createSurvey(projectId, body),
});

updateMutation(SURVEY, {
  names: ['updateSurvey', 'UpdateSurveyInput', 'UpdateSurveyPayload', 'UpdateSurveyResult'],
  description: 'Changes a survey.',
  fields: FIELDS,
  send: (rest, at, body) => rest.updateSurvey(at.parentId, at.pathId, body),
});

deleteMutation(SURVEY, {
  names: ['deleteSurvey', 'DeleteSurveyInput', 'DeleteSurveyPayload', 'DeleteSurveyResult'],
  description: 'Deletes a survey (and its targeting flags).',
  send: (rest, at) => rest.deleteSurvey(at.parentId, at.pathId),
});
