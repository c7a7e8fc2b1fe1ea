// Survey mutations: createSurvey, updateSurvey, deleteSurvey (surveys live in a project).
import { expect } from 'vitest';
import type { ReferenceApi } from '../../../src/reference-api/index.ts';
import type { Harness } from '../../support/harness.ts';
import { UNKNOWN_UUID } from '../../support/ids.ts';
import { deleteCase, describeMutations, freshOrg, globalId, type MutationCase, orgId, projectIdOf, unique } from './support.ts';

const SELECTION = 'survey { id databaseId name type questions startDate endDate archived responsesLimit linkedFlagId }';

function freshProject(api: ReferenceApi) {
  const projectId = projectIdOf(api, freshOrg(api));
  return { projectId, id: globalId('Project', projectId) };
}

function freshSurvey(api: ReferenceApi) {
  const { projectId } = freshProject(api);
  const team = api.store.teamByProjectId(Number(projectId));
  if (!team) throw new Error('no team');
  const record = api.store.addSurvey(team.id, { name: unique('Scratch survey ') });
  return { record, id: globalId('Survey', projectId, record.id), path: `/api/projects/${projectId}/surveys/${record.id}/` };
}

const missingSurvey = (h: Harness) => ({ id: globalId('Survey', freshProject(h.api).projectId, UNKNOWN_UUID) });
const wrongType = (h: Harness) => ({ id: globalId('Domain', freshOrg(h.api).id, UNKNOWN_UUID) });

const cases: MutationCase[] = [
  {
    name: 'createSurvey',
    selection: SELECTION,
    scope: 'survey:write',
    arrange: (h) => {
      const { projectId, id: project } = freshProject(h.api);
      const questions = [{ type: 'open', question: 'Why?' }];
      return {
        input: {
          projectId: project,
          name: 'Why survey',
          type: 'popover',
          questions,
          startDate: '2026-05-01T00:00:00Z',
          iterationStartDates: [],
        },
        method: 'POST',
        path: `/api/projects/${projectId}/surveys/`,
        body: { name: 'Why survey', type: 'popover', questions, start_date: '2026-05-01T00:00:00Z', iteration_start_dates: [] },
        check: ({ survey }) => {
          expect(survey).toMatchObject({ name: 'Why survey', type: 'popover', questions, archived: false });
          expect(survey.id).toBe(globalId('Survey', projectId, survey.databaseId));
          expect(h.api.store.surveys.get(survey.databaseId)?.name).toBe('Why survey');
        },
      };
    },
    invalid: (h) => ({ input: { projectId: freshProject(h.api).id, name: 'x', type: 'carousel' }, field: 'type', code: 'invalid_choice' }),
    missing: () => ({ projectId: globalId('Project', '999999'), name: 'x', type: 'popover' }),
    wrongType: (h) => ({ projectId: orgId(freshOrg(h.api)), name: 'x', type: 'popover' }),
  },
  {
    name: 'updateSurvey',
    selection: SELECTION,
    scope: 'survey:write',
    arrange: (h) => {
      const { record, id, path } = freshSurvey(h.api);
      return {
        input: { id, name: 'Renamed survey', endDate: null, responsesLimit: 10 },
        method: 'PATCH',
        path,
        body: { name: 'Renamed survey', end_date: null, responses_limit: 10 },
        check: ({ survey }) => {
          expect(survey).toMatchObject({ id, name: 'Renamed survey', endDate: null, responsesLimit: 10 });
          expect(record.name).toBe('Renamed survey');
        },
      };
    },
    invalid: (h) => ({ input: { id: freshSurvey(h.api).id, linkedFlagId: 999999 }, field: 'linkedFlagId', code: 'does_not_exist' }),
    missing: missingSurvey,
    wrongType,
    patch: { value: ['archived', true, 'archived'], nulled: ['responsesLimit', 'responses_limit'] },
  },
  deleteCase(
    'deleteSurvey',
    'survey:write',
    (h) => {
      const { record, id, path } = freshSurvey(h.api);
      return { id, path, exists: () => h.api.store.surveys.has(record.id) };
    },
    { missing: missingSurvey, wrongType },
  ),
];

describeMutations(cases);
