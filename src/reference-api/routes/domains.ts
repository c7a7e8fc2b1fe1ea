// /api/organizations/:organization_id/domains: CRUD plus verify (seed 4.3).
import { validationError } from '../api-errors.ts';
import { found, normalizeUuid, requireLevel, requireOrganization } from '../lookup.ts';
import { listReply } from '../pagination.ts';
import { created, noContent, ok, type Route, type RouteContext } from '../router.ts';
import { serializeDomain } from '../serializers.ts';
import { LEVEL_ADMIN, type StoredDomain } from '../stored-records.ts';
import { type Fields, type Schema, validateFields } from '../validation.ts';

/** The live service's `sso_enforcement` values ("" = not enforced). */
const SSO_PROVIDERS = ['', 'google-oauth2', 'github', 'gitlab', 'saml'];

const DOMAIN_FIELDS: Schema = {
  domain: { kind: 'string', required: true, maxLength: 128 },
  jit_provisioning_enabled: { kind: 'boolean' },
  sso_enforcement: { kind: 'choice', choices: SSO_PROVIDERS },
  saml_entity_id: { kind: 'string', blank: true, nullable: true, maxLength: 512 },
  saml_acs_url: { kind: 'string', blank: true, nullable: true, maxLength: 512 },
  saml_x509_cert: { kind: 'string', blank: true, nullable: true },
};

/** The live service's domain check: lower-case labels and a TLD, no scheme or path. */
const DOMAIN_SYNTAX = /^([a-z0-9]+(-[a-z0-9]+)*\.)+[a-z]{2,}$/;

function checkDomain(ctx: RouteContext, fields: Fields, current?: StoredDomain): void {
  if (fields.domain === undefined) return;
  const domain = String(fields.domain);
  if (!DOMAIN_SYNTAX.test(domain)) throw validationError('invalid_input', 'Please enter a valid domain or subdomain name.', 'domain');
  // Unique across every organization, like the live model's unique constraint.
  const clash = [...ctx.store.domains.values()].find((d) => d.domain === domain && d.id !== current?.id);
  if (clash) throw validationError('unique', 'organization domain with this domain already exists.', 'domain');
}

function findDomain(ctx: RouteContext): { record: StoredDomain; membership: ReturnType<typeof requireOrganization>['membership'] } {
  const { org, membership } = requireOrganization(ctx);
  const record = ctx.store.domains.get(normalizeUuid(ctx.params.id ?? '') ?? '');
  return { record: found(record?.organization_id === org.id ? record : undefined), membership };
}

function list(ctx: RouteContext) {
  const { org } = requireOrganization(ctx);
  return listReply(ctx, ctx.store.domainsOf(org.id), serializeDomain);
}

function create(ctx: RouteContext) {
  const { org, membership } = requireOrganization(ctx);
  requireLevel(membership, LEVEL_ADMIN); // live: OrganizationAdminWritePermissions
  const fields = validateFields(ctx.body, DOMAIN_FIELDS, false);
  checkDomain(ctx, fields);
  const record = ctx.store.addDomain(org.id, { ...fields, domain: String(fields.domain) });
  return created(serializeDomain(record));
}

function retrieve(ctx: RouteContext) {
  return ok(serializeDomain(findDomain(ctx).record));
}

function update(ctx: RouteContext) {
  const { record, membership } = findDomain(ctx);
  requireLevel(membership, LEVEL_ADMIN);
  const fields = validateFields(ctx.body, DOMAIN_FIELDS, true);
  checkDomain(ctx, fields, record);
  // A different domain has not been proven: it needs verifying again, with a fresh challenge.
  if (fields.domain !== undefined && fields.domain !== record.domain) {
    record.verified_at = null;
    record.verification_challenge = ctx.store.ids.token(43);
  }
  Object.assign(record, fields);
  return ok(serializeDomain(record));
}

function destroy(ctx: RouteContext) {
  const { record, membership } = findDomain(ctx);
  requireLevel(membership, LEVEL_ADMIN);
  ctx.store.domains.delete(record.id);
  return noContent();
}

/** No DNS here: `settings.domainVerificationPasses` decides. A verified domain cannot be verified again. */
function verify(ctx: RouteContext) {
  const { record, membership } = findDomain(ctx);
  requireLevel(membership, LEVEL_ADMIN);
  if (record.verified_at) throw validationError('already_verified', 'This domain has already been verified.');
  if (ctx.settings.domainVerificationPasses) record.verified_at = ctx.store.now();
  return ok(serializeDomain(record));
}

const base = '/api/organizations/:organization_id/domains';
export const domainRoutes: Route[] = [
  { path: base, scope: 'organization', handlers: { GET: list, POST: create } },
  { path: `${base}/:id`, scope: 'organization', handlers: { GET: retrieve, PATCH: update, DELETE: destroy } },
  { path: `${base}/:id/verify`, scope: 'organization', handlers: { POST: verify } },
];
