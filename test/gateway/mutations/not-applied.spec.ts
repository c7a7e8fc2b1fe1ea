// No silent success: a create or update the upstream answered without applying a field the caller
// set answers NotAppliedError with the record as answered; a string it normalised is not reported.
import { OverlappingFieldsCanBeMergedRule, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../../../src/schema/index.ts';
import { useHarness } from '../../support/harness.ts';
import { UNKNOWN_UUID } from '../../support/ids.ts';
import { sendJson } from '../../support/scripted-answers.ts';
import { freshOrg, globalId, mutate, orgId } from './support.ts';

const ORG = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const DOMAIN = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c';

/** The Payload's record and NotAppliedError.record in one selection. */
const UPDATE_DOMAIN = `mutation UpdateDomain($input: UpdateDomainInput!) {
  updateDomain(input: $input) {
    __typename
    ... on UpdateDomainPayload { domain { id databaseId jitProvisioningEnabled } }
    ... on NotAppliedError { message fields record { id ... on Domain { databaseId jitProvisioningEnabled samlEntityId } } }
  }
}`;

const UPDATE_ORGANIZATION = `mutation UpdateOrganization($input: UpdateOrganizationInput!) {
  updateOrganization(input: $input) {
    __typename
    ... on UpdateOrganizationPayload { organization { name isMemberJoinEmailEnabled membersCanInvite logoMediaId } }
    ... on NotAppliedError { fields record { ... on Organization { name isMemberJoinEmailEnabled membersCanInvite } } }
  }
}`;

describe('NotAppliedError against an upstream that ignores or normalises fields', () => {
  const harness = useHarness();
  const run = async (query: string, input: object) => {
    harness().api.clearRequests();
    return (await harness().run<Record<string, any>, { input: object }>(query, { input })).body;
  };

  it('selects NotAppliedError.record beside the payload record in one valid operation', () => {
    for (const document of [UPDATE_DOMAIN, UPDATE_ORGANIZATION]) {
      expect(validate(schema, parse(document), [OverlappingFieldsCanBeMergedRule])).toEqual([]);
      expect(validate(schema, parse(document))).toEqual([]);
    }
  });

  it('answers NotAppliedError naming a field the answer lacks, with the record as answered, after one write', async () => {
    // The live domain record has no SAML fields: the upstream ignores them.
    harness().api.answerWith((_req, res) =>
      sendJson(res, 200, { id: DOMAIN, domain: 'a.example', jit_provisioning_enabled: true, sso_enforcement: '', is_verified: false }),
    );
    const id = globalId('Domain', ORG, DOMAIN);
    const body = await run(UPDATE_DOMAIN, { id, samlEntityId: 'https://idp.example/', jitProvisioningEnabled: true });
    expect(body.errors).toBeUndefined();
    expect(body.data?.updateDomain).toEqual({
      __typename: 'NotAppliedError',
      message: expect.stringContaining('samlEntityId'),
      fields: ['samlEntityId'],
      record: { id, databaseId: DOMAIN, jitProvisioningEnabled: true, samlEntityId: null },
    });
    expect(harness().api.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['PATCH', `/api/organizations/${ORG}/domains/${DOMAIN}/`, { saml_entity_id: 'https://idp.example/', jit_provisioning_enabled: true }],
    ]);
  });

  it('reports a Boolean answered with another value and a null answered non-null, in the input type field order', async () => {
    harness().api.answerWith((_req, res) =>
      sendJson(res, 200, {
        id: ORG,
        name: 'Hogflix',
        is_member_join_email_enabled: true,
        members_can_invite: true,
        logo_media_id: UNKNOWN_UUID,
      }),
    );
    const body = await run(UPDATE_ORGANIZATION, {
      id: globalId('Organization', ORG),
      logoMediaId: null,
      isMemberJoinEmailEnabled: false,
      membersCanInvite: true,
    });
    expect(body.data?.updateOrganization).toEqual({
      __typename: 'NotAppliedError',
      fields: ['isMemberJoinEmailEnabled', 'logoMediaId'],
      record: { name: 'Hogflix', isMemberJoinEmailEnabled: true, membersCanInvite: true },
    });
    expect(harness().api.requests).toHaveLength(1);
  });

  it('does not report a string the upstream normalised (trimmed, re-cased), nor an equal value', async () => {
    harness().api.answerWith((_req, res) =>
      sendJson(res, 200, { id: ORG, name: 'Hogflix', is_member_join_email_enabled: false, members_can_invite: false, logo_media_id: ORG }),
    );
    const body = await run(UPDATE_ORGANIZATION, {
      id: globalId('Organization', ORG),
      name: '  hogFLIX ',
      logoMediaId: ORG.toUpperCase(),
      membersCanInvite: false,
    });
    expect(body.errors).toBeUndefined();
    expect(body.data?.updateOrganization).toEqual({
      __typename: 'UpdateOrganizationPayload',
      organization: { name: 'Hogflix', isMemberJoinEmailEnabled: false, membersCanInvite: false, logoMediaId: ORG },
    });
  });
});

describe('NotAppliedError against the reference API, which ignores read-only and moved fields as the service does', () => {
  const harness = useHarness();

  it('updateOrganization(isMemberJoinEmailEnabled: false): sent once, answered NotAppliedError, the value stays true', async () => {
    const h = harness();
    const org = freshOrg(h.api);
    const run = await mutate(h, 'updateOrganization', { id: orgId(org), isMemberJoinEmailEnabled: false, membersCanInvite: false });
    expect(run.writes.map((w) => [w.method, w.path, w.body])).toEqual([
      ['PATCH', `/api/organizations/${org.id}/`, { is_member_join_email_enabled: false, members_can_invite: false }],
    ]);
    expect(run.result).toEqual({ __typename: 'NotAppliedError' });
    expect(org.is_member_join_email_enabled).toBe(true);
    expect(org.members_can_invite).toBe(false);
  });

  it('updateDomain(samlEntityId: ...): NotAppliedError, the domain record has no SAML fields', async () => {
    const h = harness();
    const org = freshOrg(h.api);
    const domain = h.api.store.addDomain(org.id, { domain: 'saml-moved.example' });
    const run = await mutate(h, 'updateDomain', { id: globalId('Domain', org.id, domain.id), samlEntityId: 'e' });
    expect(run.writes.map((w) => w.body)).toEqual([{ saml_entity_id: 'e' }]);
    expect(run.result).toEqual({ __typename: 'NotAppliedError' });
  });
});
