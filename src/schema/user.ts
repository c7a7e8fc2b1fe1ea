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
      roleAtOrganization: [
        'role_at_organization',
        'String',
        'The role the user gave at sign-up, e.g. `engineering`, `product`, `founder`.',
      ],
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
      hasEncryptedPayloads: ['has_encrypted_payloads', 'Boolean', "Whether the flag's payloads are encrypted."],
      version: ['version', 'Int', 'The version of the flag, raised by each change.'],
      evaluationRuntime: ['evaluation_runtime', 'String', 'Where the flag is evaluated: `server`, `client` or `all`.'],
      bucketingIdentifier: ['bucketing_identifier', 'String', 'What rollout buckets by, e.g. `distinct_id` or `device_id`.'],
      evaluationTags: ['evaluation_tags', ['String'], 'Tags that limit where the flag is evaluated.'],
    }),
  }),
});
