import type { DomainRecord } from '../loaders/tagged-records.ts';
import { registerNode, retrieveCall } from './node-registry.ts';
import { nodeType } from './node-type.ts';
import { DomainRef } from './refs.ts';
import { type RestFieldTable, restFields } from './rest-fields.ts';
import { connectionTypes } from './rest-list-fields.ts';
import { requiresScope } from './scopes.ts';

const READ = requiresScope('organization:read');

/** Why the SAML fields are deprecated: the service keeps them elsewhere now. */
const SAML_MOVED = {
  deprecated: 'SAML settings moved to the identity provider configs of the organization; the domain record no longer has them.',
};

/** Single sign-on settings that read and write alike: shared with the domain mutations' inputs. */
export const DOMAIN_SSO_SETTINGS = {
  jitProvisioningEnabled: ['jit_provisioning_enabled', 'Boolean', 'Whether users of this domain join automatically on first login.'],
  samlEntityId: ['saml_entity_id', 'String', 'SAML entity id (null: the service no longer sends it).', SAML_MOVED],
  samlAcsUrl: ['saml_acs_url', 'String', 'SAML assertion consumer service URL (null: the service no longer sends it).', SAML_MOVED],
  samlX509Cert: ['saml_x509_cert', 'String', 'SAML X.509 certificate (null: the service no longer sends it).', SAML_MOVED],
} satisfies RestFieldTable<DomainRecord>;

nodeType(DomainRef, {
  description: `An e-mail domain of the organization, with its single sign-on settings. ${READ}`,
  idParts: (d) => [d.$org, d.id],
  fields: (t) => ({
    databaseId: t.field({ type: 'UUID', nullable: false, description: 'The REST `id`.', resolve: (d) => d.id }),
    ...restFields<DomainRecord>(t, {
      domain: ['domain', 'String', 'The domain name, e.g. `example.com`.'],
      isVerified: ['is_verified', 'Boolean', 'Whether ownership of the domain has been verified.'],
      verifiedAt: ['verified_at', 'DateTime', 'When the domain was verified.'],
      verificationChallenge: ['verification_challenge', 'String', 'The DNS TXT value that proves ownership.'],
      ...DOMAIN_SSO_SETTINGS,
      ssoEnforcement: [
        'sso_enforcement',
        'String',
        'Login method enforced for the domain, e.g. `google-oauth2`, `github`, `gitlab`, `saml`, or empty.',
      ],
      scimBaseUrl: ['scim_base_url', 'String', 'The SCIM endpoint identity providers provision users of this domain through.'],
      hasSaml: ['has_saml', 'Boolean', 'Whether SAML is fully configured (null: the service no longer sends it).', SAML_MOVED],
    }),
  }),
});

registerNode('Domain', {
  shape: ['uuid', 'uuid'],
  call: ([orgId, id]) => retrieveCall('Domain', orgId as string, id as string),
  load: ([orgId, id], context) => context.loaders.domains.byId(orgId as string, id as string),
});

export const DomainConnection = connectionTypes(DomainRef, { connection: 'DomainConnection', edge: 'DomainEdge', what: 'domains' });
