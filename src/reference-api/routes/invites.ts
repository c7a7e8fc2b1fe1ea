// /api/organizations/:organization_id/invites: list, create, delete, bulk (seed 4.4).
import { permissionDenied, validationError } from '../api-errors.ts';
import { found, normalizeUuid, type OrganizationAccess, requireOrganization } from '../lookup.ts';
import { listReply } from '../pagination.ts';
import { created, noContent, ok, type Route, type RouteContext } from '../router.ts';
import { serializeInvite } from '../serializers.ts';
import { MEMBER_LEVELS, type StoredInvite } from '../stored-records.ts';
import { type Fields, type Schema, validateFields } from '../validation.ts';

const INVITE_FIELDS: Schema = {
  target_email: { kind: 'email', required: true, maxLength: 254 },
  first_name: { kind: 'string', blank: true, maxLength: 30 },
  level: { kind: 'choice', choices: MEMBER_LEVELS },
  message: { kind: 'string', blank: true, nullable: true },
  private_project_access: { kind: 'list', nullable: true },
};

/** The live service's limit on one bulk request. */
const MAX_BULK_INVITES = 20;

/** Validates one invite the live way; returns the fields to store. Creates nothing. */
function validateInvite(ctx: RouteContext, access: OrganizationAccess, body: unknown): Fields {
  const fields = validateFields(body, INVITE_FIELDS, false);
  // The live service lower-cases the e-mail's domain only (the local part may be case-sensitive).
  const email = String(fields.target_email);
  const at = email.lastIndexOf('@');
  fields.target_email = `${email.slice(0, at)}@${email.slice(at + 1).toLowerCase()}`;
  const level = Number(fields.level ?? MEMBER_LEVELS[0]);
  if (level > access.membership.level) throw permissionDenied('You cannot invite a user with a higher permission level than your own.');
  const alreadyMember = ctx.store
    .membersOf(access.org.id)
    .some((m) => ctx.store.users.get(m.user_id)?.email.toLowerCase() === String(fields.target_email).toLowerCase());
  if (alreadyMember) throw validationError('invalid_input', 'A user with this email address already belongs to the organization.');
  return { ...fields, level };
}

/** A new invite replaces any earlier one for the same e-mail in the organization, as live. */
function saveInvite(ctx: RouteContext, access: OrganizationAccess, fields: Fields): StoredInvite {
  const email = String(fields.target_email).toLowerCase();
  for (const invite of ctx.store.invitesOf(access.org.id)) {
    if (invite.target_email.toLowerCase() === email) ctx.store.invites.delete(invite.id);
  }
  return ctx.store.addInvite(access.org.id, {
    target_email: String(fields.target_email),
    first_name: typeof fields.first_name === 'string' ? fields.first_name : '',
    level: Number(fields.level),
    message: typeof fields.message === 'string' ? fields.message : null,
    private_project_access: fields.private_project_access ?? [],
    created_by_id: ctx.user.id,
    // No mail server here, so no e-mail is attempted (the live service sets this when it sends one).
    emailing_attempt_made: false,
  });
}

function list(ctx: RouteContext) {
  const { org } = requireOrganization(ctx);
  return listReply(ctx, ctx.store.invitesOf(org.id), (invite) => serializeInvite(ctx.store, invite));
}

function create(ctx: RouteContext) {
  const access = requireOrganization(ctx);
  const invite = saveInvite(ctx, access, validateInvite(ctx, access, ctx.body));
  return created(serializeInvite(ctx.store, invite));
}

function destroy(ctx: RouteContext) {
  const { org } = requireOrganization(ctx);
  const invite = ctx.store.invites.get(normalizeUuid(ctx.params.id ?? '') ?? '');
  ctx.store.invites.delete(found(invite?.organization_id === org.id ? invite : undefined).id);
  return noContent();
}

/**
 * A JSON array of at most 20 invites, created atomically: all are validated first, and on the first
 * error none is created. Seed shape: 200 with the first invite; live shape: 201 with all of them.
 */
function bulk(ctx: RouteContext) {
  const access = requireOrganization(ctx);
  const body = ctx.body;
  if (!Array.isArray(body)) throw validationError('invalid_input', 'This endpoint needs an array of data for bulk invite creation.');
  if (body.length > MAX_BULK_INVITES) {
    throw validationError('max_length', `A maximum of ${MAX_BULK_INVITES} invites can be sent in a single request.`);
  }
  if (body.length === 0 && !ctx.settings.liveShapes) {
    throw validationError('invalid_input', 'This endpoint needs at least one invite.'); // the seed shape needs one record
  }
  const validated = body.map((item) => validateInvite(ctx, access, item));
  // Saved in order, so a repeated e-mail ends with the later invite, as in the live service.
  const invites = validated.map((fields) => saveInvite(ctx, access, fields)).map((invite) => serializeInvite(ctx.store, invite));
  return ctx.settings.liveShapes ? created(invites) : ok(invites[0]);
}

const base = '/api/organizations/:organization_id/invites';
export const inviteRoutes: Route[] = [
  { path: base, scope: 'organization_member', handlers: { GET: list, POST: create } },
  { path: `${base}/bulk`, scope: 'organization_member', handlers: { POST: bulk } },
  { path: `${base}/:id`, scope: 'organization_member', handlers: { DELETE: destroy } },
];
