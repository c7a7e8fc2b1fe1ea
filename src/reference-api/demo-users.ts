// The users and personal API keys every instance starts with (also with `demoData: false`).
// Ids come from their own seeded stream, so keys and user uuids do not move when demo data changes.
import type { ReferenceApiKey } from './auth.ts';
import { createIdSource } from './random.ts';
import type { ReferenceStore } from './store.ts';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The users' ids by first name (demo is the demo key's user; outsider belongs only to Elsewhere Inc). */
export const USER_IDS = { demo: 1, alice: 2, bob: 3, carol: 4, dave: 5, outsider: 6, erin: 7 } as const;
export const DEMO_USER_ID = USER_IDS.demo;
const MEMBER_USER_ID = USER_IDS.bob;
export const OUTSIDER_USER_ID = USER_IDS.outsider;

const USERS = [
  {
    id: 1,
    first_name: 'Demo',
    last_name: 'User',
    email: 'demo@example.com',
    hedgehog_config: { use_as_profile: true, color: 'blue', accessories: ['beret'] },
    is_2fa_enabled: true,
    role_at_organization: 'engineering',
    last_login: '2026-03-02T08:15:00Z',
  },
  {
    id: 2,
    first_name: 'Alice',
    last_name: 'Anders',
    email: 'alice@hedgehog.example',
    hedgehog_config: null,
    role_at_organization: 'product',
    last_login: '2026-03-01T17:40:00Z',
  },
  { id: 3, first_name: 'Bob', last_name: 'Baker', email: 'bob@hedgehog.example', hedgehog_config: null, has_social_auth: true },
  {
    id: 4,
    first_name: 'Carol',
    last_name: 'Chen',
    email: 'carol@prickly.example',
    hedgehog_config: { use_as_profile: false, color: null, accessories: [] },
  },
  { id: 5, first_name: 'Dave', last_name: 'Diaz', email: 'dave@prickly.example', hedgehog_config: null, is_email_verified: false },
  { id: 6, first_name: 'Olive', last_name: 'Outsider', email: 'olive@elsewhere.example', hedgehog_config: null },
  { id: 7, first_name: 'Erin', last_name: 'Evans', email: 'erin@elsewhere.example', hedgehog_config: null },
];

const READ_SCOPES = ['organization:read', 'batch_export:read', 'organization_member:read', 'plugin:read', 'survey:read'];

/** label -> [user, scopes]. */
const KEYS: [string, number, string[]][] = [
  ['demo', DEMO_USER_ID, ['*']],
  ['readOnly', DEMO_USER_ID, READ_SCOPES],
  ['organizationRead', DEMO_USER_ID, ['organization:read']],
  ['batchExportWrite', DEMO_USER_ID, ['batch_export:write']],
  ['noScopes', DEMO_USER_ID, []],
  ['member', MEMBER_USER_ID, ['*']],
  ['outsider', OUTSIDER_USER_ID, ['*']],
];

export function seedUsers(store: ReferenceStore): void {
  const ids = createIdSource('reference-api:users');
  for (const user of USERS) store.addUser({ ...user, uuid: ids.uuid(), distinct_id: ids.token(43, ALPHANUMERIC) });
}

/** The default keys: the same strings on every start, so the printed curl lines keep working. */
export function demoKeys(): ReferenceApiKey[] {
  const ids = createIdSource('reference-api:keys');
  return KEYS.map(([label, userId, scopes]) => ({ key: `phx_${ids.token(47, ALPHANUMERIC)}`, userId, scopes, label }));
}
