// Project (an organization's team): no REST record of its own; it holds the surveys (seed 4.7).
import { gatewayError } from '../errors/graphql-errors.ts';
import type { ArgumentCheck } from './argument-checks.ts';
import { builder } from './builder.ts';
import { isIdPart } from './global-id.ts';
import { registerNode } from './node-registry.ts';
import { nodeType } from './node-type.ts';
import { ProjectRef, SurveyRef } from './refs.ts';
import { restListFields } from './rest-list-fields.ts';
import { requiresScope } from './scopes.ts';
import { SurveyConnection } from './survey.ts';

const SURVEYS_READ = requiresScope('survey:read');

nodeType(ProjectRef, {
  description:
    "A project (an organization's team). It has no REST record of its own: it is known from `Organization.projects` or by its id, and holds the surveys.",
  idParts: (p) => [p.projectId],
  fields: (t) => {
    const surveys = restListFields(t, {
      type: SurveyRef,
      connection: SurveyConnection,
      parentNoun: 'project',
      what: 'surveys',
      scope: SURVEYS_READ,
      parentId: (project) => project.projectId,
      loader: (context) => context.loaders.surveys,
    });
    return {
      databaseId: t.field({ type: 'String', nullable: false, description: 'The REST project id.', resolve: (p) => p.projectId }),
      name: t.exposeString('name', { description: "The first team's name when reached through `Organization.projects`, else null." }),
      surveysResponsesCount: t.field({
        type: 'JSON',
        description: `Responses per survey: the live service answers a map from survey id to count; passed through as sent. ${SURVEYS_READ}`,
        extensions: { fanOut: 'call' },
        resolve: (p, _args, context) =>
          context.loaders.once(`responses_count:${p.projectId}`, (rest) => rest.getSurveysResponsesCount(p.projectId)),
      }),
      surveys: surveys.connection(),
      survey: surveys.lookup('UUID'),
    };
  },
});

// A project's global id carries only its id: `node` answers without an upstream call, name null.
registerNode('Project', {
  shape: ['project'],
  call: () => null,
  load: ([projectId]) => ({ $type: 'Project', projectId: projectId as string, name: null }),
});

builder.queryField('project', (t) =>
  t.field({
    type: ProjectRef,
    description: 'The project with this REST id. Makes no upstream call by itself; its `name` is null here.',
    args: { databaseId: t.arg.string({ required: true, description: 'The REST project id.' }) },
    extensions: { checkArguments: (({ databaseId }) => checkProjectId(String(databaseId))) satisfies ArgumentCheck },
    resolve: (_root, { databaseId }) => {
      checkProjectId(databaseId);
      return { $type: 'Project' as const, projectId: databaseId, name: null };
    },
  }),
);

/** A project id is digits (or `@current`), and its global id one `node(id:)` takes back. */
function checkProjectId(databaseId: string): void {
  if (!isIdPart('project', databaseId)) {
    throw gatewayError('BAD_USER_INPUT', '`databaseId` must be a project id: 1 to 20 digits, or `@current`.', {
      argumentName: 'databaseId',
    });
  }
}
