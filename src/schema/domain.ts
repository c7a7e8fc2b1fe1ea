import type { DomainRecord } from '../loaders/tagged-records.ts';
import { builder } from './builder.ts';
import { listFields } from './connection-types.ts';
import { requiresScope } from './naming.ts';
import { registerNode, retrieveCall } from './node-registry.ts';
import { nodeType } from './node-type.ts';
import { DomainRef, OrganizationRef } from './refs.ts';
import { restFields } from './rest-fields.ts';

const READ = requiresScope('organization:read');

nodeType(DomainRef, {
  description: `An e-mail domain of the organization, with its single sign-on settings. ${READ}`,
  idParts: (d) => [d.$org, d.id],
  fields: (t) => ({
    databaseId: t.field({ type: 'UUID', nullable: false, description: 'The REST `id`.', resolve: (d) => d.id }),
    ...restFields<DomainRecord>(t, {
      domain: ['String', 'The domain name, e.g. `example.com`.'],
      is_verified: ['Boolean', 'Whether ownership of the domain has been verified.'],
      verified_at: ['DateTime', 'When the domain was verified.'],
      verification_challenge: ['String', 'The DNS TXT value that proves ownership.'],
      jit_provisioning_enabled: ['Boolean', 'Whether users of this domain join automatically on first login.'],
      sso_enforcement: ['String', 'Login method enforced for the domain, e.g. `google-oauth2`, `github`, `gitlab`, `saml`, or empty.'],
      has_saml: ['Boolean', 'Whether SAML is fully configured.'],
      saml_entity_id: ['String', 'SAML entity id.'],
      saml_acs_url: ['String', 'SAML assertion consumer service URL.'],
      saml_x509_cert: ['String', 'SAML X.509 certificate.'],
    }),
  }),
});

registerNode('Domain', {
  shape: ['uuid', 'uuid'],
  call: ([orgId, id]) => retrieveCall('Domain', orgId as string, id as string),
  load: ([orgId, id], context) => context.loaders.domains.byId(orgId as string, id as string),
});

listFields(OrganizationRef, {
  ref: DomainRef,
  typeName: 'Domain',
  listField: 'domains',
  lookupField: 'domain',
  what: 'domains',
  parentNoun: 'organization',
  scope: READ,
  parentId: (org) => org.id,
  loader: (context) => context.loaders.domains,
});
