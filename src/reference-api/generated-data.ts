// Generated data of given sizes (the `generatedData` option): organizations the demo user owns, each
// with the same number of records in every family, for the benchmarks (bench/lib/dataset.ts holds
// their sizes) and for tests that need volume rather than variety. Deterministic like the demo
// data: fixed timestamps, ids from the store's seeded stream.
import { addDemoBatchExports } from './demo/batch-exports.ts';
import { DEMO_USER_ID } from './demo-users.ts';
import type { ReferenceStore } from './store.ts';
import { LEVEL_ADMIN, LEVEL_MEMBER, type StoredOrganization } from './stored-records.ts';
import { shiftTimestamp as at } from './time.ts';

export interface GeneratedDataSizes {
  organizations: number;
  /** Per organization, as the rest. */
  batchExports: number;
  domains: number;
  /** The demo user (the owner) included. */
  members: number;
  invites: number;
  pipelineDestinations: number;
  pipelineFrontendApps: number;
  pipelineImportApps: number;
  projectsPerOrganization: number;
  surveysPerProject: number;
}

const SINCE = '2026-04-01T09:00:00Z';
const SURVEY_TYPES = ['popover', 'widget', 'api', 'external_survey'];

export function seedGeneratedData(store: ReferenceStore, sizes: GeneratedDataSizes): void {
  const existing = store.organizations.size;
  for (let o = 1; o <= sizes.organizations; o += 1) {
    const created = at(SINCE, 24 * o);
    const org = store.addOrganization(
      { name: `Organization ${existing + o}`, created_at: created, updated_at: created },
      { owner: DEMO_USER_ID, firstTeamName: null },
    );
    addMembers(store, org, sizes.members - 1, o);
    for (let p = 1; p <= sizes.projectsPerOrganization; p += 1) {
      const team = store.addTeam(org.id, { name: `Project ${o}.${p}`, created_at: created });
      for (let s = 1; s <= sizes.surveysPerProject; s += 1) {
        store.addSurvey(team.id, {
          name: `Survey ${o}.${p}.${s}`,
          description: 'How are we doing?',
          type: SURVEY_TYPES[(s - 1) % SURVEY_TYPES.length] as string,
          questions: [{ type: 'open', question: 'What can we improve?' }],
          created_at: at(created, s),
          created_by_id: DEMO_USER_ID,
        });
      }
    }
    addDemoBatchExports(store, org, sizes.batchExports, created);
    for (let d = 1; d <= sizes.domains; d += 1) {
      store.addDomain(org.id, { domain: `d${d}.org${o}.example.com`, verified_at: d % 2 === 1 ? at(created, d) : null });
    }
    for (let i = 1; i <= sizes.invites; i += 1) {
      store.addInvite(org.id, { target_email: `invitee${i}@org${o}.example.com`, created_by_id: DEMO_USER_ID, created_at: at(created, i) });
    }
    const families = [
      ['pipeline_destinations', sizes.pipelineDestinations, 'Destination'],
      ['pipeline_frontend_apps', sizes.pipelineFrontendApps, 'Frontend app'],
      ['pipeline_import_apps', sizes.pipelineImportApps, 'Import app'],
    ] as const;
    for (const [family, count, label] of families) {
      for (let i = 1; i <= count; i += 1) {
        store.addPipelineItem(org.id, family, {
          name: `${label} ${o}.${i}`,
          plugin_type: 'custom',
          description: 'A pipeline item.',
          config_schema: [{ key: 'url', type: 'string', required: true }],
          tag: 'v1.0.0',
          latest_tag: 'v1.0.0',
          created_at: at(created, i),
        });
      }
    }
  }
}

/** `count` new users in `org`: the first an admin, the others members. */
function addMembers(store: ReferenceStore, org: StoredOrganization, count: number, o: number): void {
  for (let m = 1; m <= count; m += 1) {
    const user = store.addUser({ first_name: `User${m}`, last_name: `Org${o}`, email: `user${m}@org${o}.example.com` });
    store.addMembership(org.id, user.id, m === 1 ? LEVEL_ADMIN : LEVEL_MEMBER, { joined_at: at(org.created_at, m) });
  }
}
