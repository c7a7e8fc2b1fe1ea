// Project names come from the organization's `projects`; a project without a name there takes its
// first team's, and only an answer without `projects` derives the projects from `teams`.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../support/harness.ts';
import { sendJson } from '../support/scripted-answers.ts';

const ORG = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const TEAMS = [
  { id: 11, project_id: 10, name: 'Hogflix Prod' },
  { id: 12, project_id: 10, name: 'Hogflix Staging' },
  { id: 21, project_id: 20, name: 'Hogflix Labs' },
];

const harness = useHarness();

async function projectsWhenAnswered(organization: object) {
  harness().api.answerWith((_req, res) => sendJson(res, 200, { id: ORG, name: 'Hogflix', teams: TEAMS, ...organization }));
  const { data } = await harness().run<{ organization: { projects: unknown[] } }, undefined>(
    `{ organization(databaseId: "${ORG}") { projects { databaseId name } } }`,
  );
  return data.organization.projects;
}

describe('Organization.projects', () => {
  it('lists the projects as `projects` names them, in order, not after a team', async () => {
    expect(
      await projectsWhenAnswered({
        projects: [
          { id: 20, name: 'Labs' },
          { id: 10, name: 'Hogflix' },
        ],
      }),
    ).toEqual([
      { databaseId: '20', name: 'Labs' },
      { databaseId: '10', name: 'Hogflix' },
    ]);
  });

  it("falls back to the project's first team for an entry without a name", async () => {
    expect(await projectsWhenAnswered({ projects: [{ id: 10 }, { id: 30, name: null }] })).toEqual([
      { databaseId: '10', name: 'Hogflix Prod' },
      { databaseId: '30', name: null },
    ]);
  });

  it('derives them from `teams` when the answer has no `projects`', async () => {
    expect(await projectsWhenAnswered({})).toEqual([
      { databaseId: '10', name: 'Hogflix Prod' },
      { databaseId: '20', name: 'Hogflix Labs' },
    ]);
  });
});
