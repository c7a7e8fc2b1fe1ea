import type { FeatureFlag, User } from '../wire/rest-types.ts';
import { builder } from './builder.ts';
import { FeatureFlagRef, UserRef } from './refs.ts';
import { restFields } from './rest-fields.ts';

builder.objectType(UserRef, {
  description: 'A user, as embedded in invites, members and surveys (not a node: it has no REST endpoint).',
  fields: (t) => ({
    databaseId: t.field({ type: 'Int', description: 'The REST `id`.', resolve: (u) => u.id }),
    ...restFields<User>(t, {
      uuid: ['uuid', 'UUID', "The user's uuid (members are addressed by it)."],
      distinctId: ['distinct_id', 'String', 'Analytics distinct id.'],
      firstName: ['first_name', 'String', 'First name.'],
      lastName: ['last_name', 'String', 'Last name.'],
      email: ['email', 'EmailAddress', 'E-mail address.'],
      isEmailVerified: ['is_email_verified', 'Boolean', 'Whether the e-mail address is verified.'],
      hedgehogConfig: ['hedgehog_config', 'JSON', 'Avatar settings.'],
    }),
  }),
});

builder.objectType(FeatureFlagRef, {
  description: 'A feature flag, as embedded in surveys (not a node).',
  fields: (t) => ({
    databaseId: t.field({ type: 'Int', description: 'The REST `id`.', resolve: (f) => f.id }),
    ...restFields<FeatureFlag>(t, {
      teamId: ['team_id', 'Int', 'The project (team) the flag belongs to.'],
      name: ['name', 'String', 'Description of the flag.'],
      key: ['key', 'String', 'The key code evaluates.'],
      filters: ['filters', 'JSON', 'Release conditions.'],
      deleted: ['deleted', 'Boolean', 'Whether the flag is deleted.'],
      active: ['active', 'Boolean', 'Whether the flag is active.'],
      ensureExperienceContinuity: ['ensure_experience_continuity', 'Boolean', 'Whether a user keeps the same value across identities.'],
    }),
  }),
});
