// createDomain, updateDomain, deleteDomain and verifyDomain (seed 4.3).
import type { DomainRecord } from '../../loaders/tagged-records.ts';
import type { Domain } from '../../wire/rest-types.ts';
import { DOMAIN_SSO_SETTINGS } from '../domain.ts';
import { DomainRef } from '../refs.ts';
import type { RestInputTable } from '../rest-fields.ts';
import { actionMutation, createMutation, deleteMutation, type RecordKind, updateMutation } from './record-mutations.ts';

const DOMAIN: RecordKind<Domain, DomainRecord> = {
  ref: DomainRef,
  field: 'domain',
  noun: 'domain',
  scope: 'organization:write',
  parent: { typeName: 'Organization', inputField: 'organizationId', noun: 'organization' },
  loader: (context) => context.loaders.domains,
  retrieve: (rest, at) => rest.getDomain(at.parentId, at.pathId),
};

const FIELDS: RestInputTable = {
  domain: ['domain', 'String', 'The domain name, e.g. `example.com` (the minimal create example gives only this).'],
  ssoEnforcement: ['sso_enforcement', 'String', 'Login method to enforce: `google-oauth2`, `github`, `gitlab`, `saml`, or empty for none.'],
  ...DOMAIN_SSO_SETTINGS,
};

createMutation(DOMAIN, {
  names: ['createDomain', 'CreateDomainInput', 'CreateDomainPayload', 'CreateDomainResult'],
  description: 'Adds an e-mail domain to an organization; it starts unverified.',
  fields: FIELDS,
  send: (rest, orgId, body) => rest.createDomain(orgId, body),
});

updateMutation(DOMAIN, {
  names: ['updateDomain', 'UpdateDomainInput', 'UpdateDomainPayload', 'UpdateDomainResult'],
  description: 'Changes a domain or its single sign-on settings.',
  fields: FIELDS,
  send: (rest, at, body) => rest.updateDomain(at.parentId, at.pathId, body),
});

deleteMutation(DOMAIN, {
  names: ['deleteDomain', 'DeleteDomainInput', 'DeleteDomainPayload', 'DeleteDomainResult'],
  description: 'Removes a domain from its organization.',
  send: (rest, at) => rest.deleteDomain(at.parentId, at.pathId),
});

actionMutation(DOMAIN, {
  names: ['verifyDomain', 'VerifyDomainInput', 'VerifyDomainPayload', 'VerifyDomainResult'],
  description: "Checks the domain's DNS challenge; `isVerified` says whether it passed.",
  send: (rest, at) => rest.verifyDomain(at.parentId, at.pathId),
});
