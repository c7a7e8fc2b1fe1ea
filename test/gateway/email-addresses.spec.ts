// E-mail addresses as the service takes them: any address it sends is served; an input is accepted
// when Django's EmailValidator accepts it (internationalised domains included) and sent as given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.ts';
import { freshOrg, globalId, orgId } from './mutations/support.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const CREATE_INVITE = `mutation Invite($input: CreateInviteInput!) {
  createInvite(input: $input) {
    __typename
    ... on CreateInvitePayload { invite { targetEmail } }
    ... on NotAppliedError { fields }
  }
}`;

describe('EmailAddress', () => {
  it('serves an internationalised address the upstream sends (anna@bücher.de), as sent', async () => {
    const org = freshOrg(h.api);
    h.api.store.addInvite(org.id, { target_email: 'anna@bücher.de' });
    const { data, errors } = await h.run(
      `query($id: ID!) { node(id: $id) { ... on Organization { invites { nodes { targetEmail } } } } }`,
      { id: globalId('Organization', org.id) },
    );
    expect(errors).toBeUndefined();
    expect((data as any).node.invites.nodes).toEqual([{ targetEmail: 'anna@bücher.de' }]);
  });

  it.each(['lena@müller.de', 'anna@bücher.de', 'x@[127.0.0.1]', 'root@localhost'])('accepts %s and sends it as given', async (email) => {
    const org = freshOrg(h.api);
    const { data, errors, calls } = await h.runCounting(CREATE_INVITE, { input: { organizationId: orgId(org), targetEmail: email } });
    expect(errors).toBeUndefined();
    expect(calls.map((c) => [c.method, c.path, c.body])).toEqual([
      ['POST', `/api/organizations/${org.id}/invites/`, { target_email: email }],
    ]);
    expect((data as any).createInvite).toEqual({ __typename: 'CreateInvitePayload', invite: { targetEmail: email } });
  });

  it.each(['jörg@müller.de', 'not-an-email', 'a@b', '@example.com', `${'a'.repeat(310)}@example.com`])(
    'refuses %s with BAD_USER_INPUT and no upstream call',
    async (email) => {
      const org = freshOrg(h.api);
      const { errors, calls } = await h.runCounting(CREATE_INVITE, { input: { organizationId: orgId(org), targetEmail: email } });
      expect(errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      expect(calls).toEqual([]);
    },
  );

  it('refuses an invalid literal in validation, as every scalar literal is, before any call', async () => {
    const org = freshOrg(h.api);
    const { errors, calls } = await h.runCounting(
      `mutation { createInvite(input: { organizationId: "${orgId(org)}", targetEmail: "jörg@müller.de" }) { __typename } }`,
    );
    expect(errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(errors?.[0]?.message).toContain('not a valid e-mail address');
    expect(calls).toEqual([]);
  });
});
