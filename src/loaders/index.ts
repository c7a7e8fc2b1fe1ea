// One set of loaders per GraphQL request, built from that request's REST client (its caller's key).
import type { RestClient } from '../rest/client.ts';
import {
  type BatchExport,
  type Domain,
  type Invite,
  type Member,
  type Organization,
  PIPELINE_FAMILIES,
  type PipelineFamily,
  type PipelineItem,
  type Survey,
} from '../rest/types.ts';
import type {
  BatchExportRecord,
  DomainRecord,
  InviteRecord,
  MemberRecord,
  OrganizationRecord,
  PipelineItemRecord,
  SurveyRecord,
} from './records.ts';
import { PIPELINE_TYPENAMES } from './records.ts';
import { ResourceLoader } from './resource-loader.ts';

export type Loaders = ReturnType<typeof createLoaders>;

/** `rest` throws UNAUTHENTICATED when the request has no key, so nothing is called without one. */
export function createLoaders(rest: () => RestClient) {
  const underOrg =
    <T extends string>($type: T) =>
    <Raw extends object>(record: Raw, orgId: string) =>
      Object.assign(record, { $type, $org: orgId });

  const pipelineLoader = (family: PipelineFamily) =>
    new ResourceLoader<PipelineItem, PipelineItemRecord>({
      list: (orgId, p) => rest().listPipelineItems(family, orgId, p),
      retrieve: (orgId, id) => rest().getPipelineItem(family, orgId, Number(id)),
      tag: (record, orgId) => Object.assign(record, { $type: PIPELINE_TYPENAMES[family], $org: orgId, $family: family }),
      idOf: (record) => String(record.id),
    });

  const memo = new Map<string, Promise<unknown>>();

  return {
    organizations: new ResourceLoader<Organization, OrganizationRecord>({
      list: (_, p) => rest().listOrganizations(p),
      retrieve: (_, id) => rest().getOrganization(id),
      tag: (record) => Object.assign(record, { $type: 'Organization' as const }),
      idOf: (record) => record.id,
    }),
    batchExports: new ResourceLoader<BatchExport, BatchExportRecord>({
      list: (orgId, p) => rest().listBatchExports(orgId, p),
      retrieve: (orgId, id) => rest().getBatchExport(orgId, id),
      tag: underOrg('BatchExport'),
      idOf: (record) => record.id,
    }),
    domains: new ResourceLoader<Domain, DomainRecord>({
      list: (orgId, p) => rest().listDomains(orgId, p),
      retrieve: (orgId, id) => rest().getDomain(orgId, id),
      tag: underOrg('Domain'),
      idOf: (record) => record.id,
    }),
    invites: new ResourceLoader<Invite, InviteRecord>({
      list: (orgId, p) => rest().listInvites(orgId, p),
      tag: underOrg('Invite'),
      idOf: (record) => record.id,
    }),
    members: new ResourceLoader<Member, MemberRecord>({
      list: (orgId, p) => rest().listMembers(orgId, p),
      tag: underOrg('Member'),
      idOf: (record) => record.id,
    }),
    pipeline: Object.fromEntries(PIPELINE_FAMILIES.map((family) => [family, pipelineLoader(family)])) as Record<
      PipelineFamily,
      ResourceLoader<PipelineItem, PipelineItemRecord>
    >,
    surveys: new ResourceLoader<Survey, SurveyRecord>({
      list: (projectId, p) => rest().listSurveys(projectId, p),
      retrieve: (projectId, id) => rest().getSurvey(projectId, id),
      tag: (record, projectId) => Object.assign(record, { $type: 'Survey' as const, $project: projectId }),
      idOf: (record) => record.id,
    }),
    /** Any other GET, made once per request however many fields ask for it. */
    once<T>(key: string, fetch: (client: RestClient) => Promise<T>): Promise<T> {
      let pending = memo.get(key) as Promise<T> | undefined;
      if (!pending) {
        pending = Promise.resolve().then(() => fetch(rest()));
        memo.set(key, pending);
      }
      return pending;
    },
    /** Forgets every memoised GET (after a write). */
    forgetOnce(): void {
      memo.clear();
    },
  };
}
