// After a mutation, the request's loaders no longer serve what it changed: later mutation fields of
// the same operation read lists, lookups and memoised GETs as the upstream now has them.
import { describe, expect, it } from 'vitest';
import { useHarness } from '../../support/harness.ts';
import { freshOrg, globalId, orgId, SHAPES, unique } from './support.ts';

const ORGANIZATION_VIEW = `
  fragment View on UpdateOrganizationResult {
    ... on UpdateOrganizationPayload {
      organization {
        memberCount
        batchExports(first: 50) { totalCount nodes { name } }
        domains(first: 50) { totalCount nodes { domain } }
        renamed: domain(databaseId: $renamedDb) { domain }
        deleted: domain(databaseId: $deletedDb) { domain }
        invites(first: 50) { totalCount }
        members(first: 50) { totalCount }
      }
    }
  }`;

describe.each(SHAPES)('loader freshness after mutations ($shape)', ({ liveShapes }) => {
  const harness = useHarness({ liveShapes });

  it('lists, lookups and counts read after writes of the same operation show the writes', async () => {
    const h = harness();
    const org = freshOrg(h.api);
    const [keptName, doomedName] = [`${unique('kept')}.example`, `${unique('doomed')}.example`];
    const kept = h.api.store.addDomain(org.id, { domain: keptName });
    const doomed = h.api.store.addDomain(org.id, { domain: doomedName });
    const user = h.api.store.addUser({ email: `${unique('leaver')}@scratch.example`, first_name: 'Lee' });
    const membership = h.api.store.addMembership(org.id, user.id, 1);
    const newName = `${unique('renamed')}.example`;
    const run = await h.runCounting(
      `mutation Fresh($org: ID!, $renamed: ID!, $deleted: ID!, $renamedDb: UUID!, $deletedDb: UUID!, $member: ID!, $newName: String!) {
        before: updateOrganization(input: { id: $org }) { ...View }
        export: createBatchExport(input: { organizationId: $org, name: "Fresh export", destination: { type: "S3" }, interval: "hour" }) { __typename }
        rename: updateDomain(input: { id: $renamed, domain: $newName }) { __typename }
        delete: deleteDomain(input: { id: $deleted }) { __typename }
        invite: createInvite(input: { organizationId: $org, targetEmail: "fresh@scratch.example" }) { __typename }
        remove: removeMember(input: { id: $member }) { __typename }
        after: updateOrganization(input: { id: $org }) { ...View }
      }
      ${ORGANIZATION_VIEW}`,
      {
        org: orgId(org),
        renamed: globalId('Domain', org.id, kept.id),
        deleted: globalId('Domain', org.id, doomed.id),
        renamedDb: kept.id,
        deletedDb: doomed.id,
        member: globalId('Member', org.id, membership.id, user.uuid),
        newName,
      },
    );
    expect(run.errors).toBeUndefined();
    const { before, after } = run.data as Record<string, { organization: Record<string, any> }>;
    expect(before?.organization).toEqual({
      memberCount: 2,
      batchExports: { totalCount: 0, nodes: [] },
      domains: { totalCount: 2, nodes: [{ domain: keptName }, { domain: doomedName }] },
      renamed: { domain: keptName },
      deleted: { domain: doomedName },
      invites: { totalCount: 0 },
      members: { totalCount: 2 },
    });
    expect(after?.organization).toEqual({
      memberCount: 1,
      batchExports: { totalCount: 1, nodes: [{ name: 'Fresh export' }] },
      domains: { totalCount: 1, nodes: [{ domain: newName }] },
      renamed: { domain: newName },
      deleted: null,
      invites: { totalCount: 1 },
      members: { totalCount: 1 },
    });
  });

  it('memoised GETs are made again after a write (checkForUpdates after an update)', async () => {
    const h = harness();
    const org = freshOrg(h.api);
    const item = h.api.store.addPipelineItem(org.id, 'pipeline_destinations', { plugin_type: 'local', tag: 'v1' });
    const id = globalId('PipelineDestination', org.id, item.id);
    const run = await h.runCounting(
      `mutation ($id: ID!) {
        first: updatePipelineDestination(input: { id: $id, tag: "v5" }) { ... on UpdatePipelineDestinationPayload { pipelineDestination { checkForUpdates { tag } } } }
        second: updatePipelineDestination(input: { id: $id, tag: "v6" }) { ... on UpdatePipelineDestinationPayload { pipelineDestination { checkForUpdates { tag } } } }
      }`,
      { id },
    );
    expect(run.errors).toBeUndefined();
    expect(run.data).toEqual({
      first: { pipelineDestination: { checkForUpdates: { tag: 'v5' } } },
      second: { pipelineDestination: { checkForUpdates: { tag: 'v6' } } },
    });
    expect(run.calls.filter((c) => c.path.endsWith('/check_for_updates/'))).toHaveLength(2);
  });
});
