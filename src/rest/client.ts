// A typed method per seed endpoint (section 4), bound to one caller's key. Every method is a route
// template plus one generic call(); lists never follow the upstream's next/previous URLs.
import { buildPath, segment, type PathParams } from './paths.ts';
import type { HttpMethod, UpstreamTransport } from './transport.ts';
import type {
  BackfillAnswer,
  BatchExport,
  BulkInvitesAnswer,
  CheckForUpdatesAnswer,
  Domain,
  Invite,
  Member,
  Organization,
  Page,
  PauseAnswer,
  PipelineFamily,
  PipelineItem,
  Survey,
} from './types.ts';

export interface ListParams {
  limit?: number;
  offset?: number;
}

/** A JSON object request body; PATCH bodies carry only the fields to change (`null` included). */
export type RestBody = Record<string, unknown>;

export interface RestCaller {
  key: string;
  requestId?: string;
  signal?: AbortSignal;
}

export interface RestClient {
  // 4.1
  listOrganizations(p?: ListParams): Promise<Page<Organization>>;
  getOrganization(id: string): Promise<Organization>;
  createOrganization(body: RestBody): Promise<Organization>;
  updateOrganization(id: string, body: RestBody): Promise<Organization>;
  deleteOrganization(id: string): Promise<void>;
  // 4.2
  listBatchExports(orgId: string, p?: ListParams): Promise<Page<BatchExport>>;
  getBatchExport(orgId: string, id: string): Promise<BatchExport>;
  createBatchExport(orgId: string, body: RestBody): Promise<BatchExport>;
  updateBatchExport(orgId: string, id: string, body: RestBody): Promise<BatchExport>;
  deleteBatchExport(orgId: string, id: string): Promise<void>;
  pauseBatchExport(orgId: string, id: string, body?: RestBody): Promise<PauseAnswer>;
  unpauseBatchExport(orgId: string, id: string, body?: RestBody): Promise<PauseAnswer>;
  backfillBatchExport(orgId: string, id: string, body: RestBody): Promise<BackfillAnswer>;
  // 4.3
  listDomains(orgId: string, p?: ListParams): Promise<Page<Domain>>;
  getDomain(orgId: string, id: string): Promise<Domain>;
  createDomain(orgId: string, body: RestBody): Promise<Domain>;
  updateDomain(orgId: string, id: string, body: RestBody): Promise<Domain>;
  deleteDomain(orgId: string, id: string): Promise<void>;
  verifyDomain(orgId: string, id: string): Promise<Domain>;
  // 4.4
  listInvites(orgId: string, p?: ListParams): Promise<Page<Invite>>;
  createInvite(orgId: string, body: RestBody): Promise<Invite>;
  deleteInvite(orgId: string, id: string): Promise<void>;
  /** Sent as a JSON array. */
  bulkCreateInvites(orgId: string, invites: object[]): Promise<BulkInvitesAnswer>;
  // 4.5: members are addressed by their user's uuid
  listMembers(orgId: string, p?: ListParams): Promise<Page<Member>>;
  updateMember(orgId: string, userUuid: string, body: RestBody): Promise<Member>;
  removeMember(orgId: string, userUuid: string): Promise<void>;
  // 4.6
  listPipelineItems(family: PipelineFamily, orgId: string, p?: ListParams): Promise<Page<PipelineItem>>;
  getPipelineItem(family: PipelineFamily, orgId: string, id: number): Promise<PipelineItem>;
  createPipelineItem(family: PipelineFamily, orgId: string, body: RestBody): Promise<PipelineItem>;
  updatePipelineItem(family: PipelineFamily, orgId: string, id: number, body: RestBody): Promise<PipelineItem>;
  deletePipelineItem(family: PipelineFamily, orgId: string, id: number): Promise<void>;
  checkPipelineItemForUpdates(family: PipelineFamily, orgId: string, id: number): Promise<CheckForUpdatesAnswer>;
  getPipelineItemSource(family: PipelineFamily, orgId: string, id: number): Promise<unknown>;
  /** PATCH `update_source`. */
  updatePipelineItemSource(family: PipelineFamily, orgId: string, id: number, body: RestBody): Promise<unknown>;
  /** POST `upgrade`. */
  upgradePipelineItem(family: PipelineFamily, orgId: string, id: number, body: RestBody): Promise<unknown>;
  getPipelineFamilyActivity(family: PipelineFamily, orgId: string): Promise<unknown>;
  getPipelineFamilyExportsUnsubscribeConfigs(family: PipelineFamily, orgId: string): Promise<unknown>;
  getPipelineFamilyRepository(family: PipelineFamily, orgId: string): Promise<unknown>;
  getPipelineFamilyUnused(family: PipelineFamily, orgId: string): Promise<unknown>;
  // 4.7
  listSurveys(projectId: string, p?: ListParams): Promise<Page<Survey>>;
  getSurvey(projectId: string, id: string): Promise<Survey>;
  createSurvey(projectId: string, body: RestBody): Promise<Survey>;
  updateSurvey(projectId: string, id: string, body: RestBody): Promise<Survey>;
  deleteSurvey(projectId: string, id: string): Promise<void>;
  /** The seed says a Survey-shaped body; the live service sends a map from survey id to count. */
  getSurveysResponsesCount(projectId: string): Promise<unknown>;
}

const ORGANIZATIONS = '/api/organizations/';
const ORGANIZATION = `${ORGANIZATIONS}:organization_id/`;
const SURVEYS = '/api/projects/:project_id/surveys/';

interface CallOptions {
  query?: Record<string, number | undefined>;
  body?: unknown;
}

export function createRestClient(transport: UpstreamTransport, caller: RestCaller): RestClient {
  async function call<T>(method: HttpMethod, template: string, params: PathParams, options: CallOptions = {}): Promise<T> {
    const response = await transport.request<T>({
      method,
      path: buildPath(template, params),
      route: template,
      query: options.query,
      body: options.body,
      key: caller.key,
      requestId: caller.requestId,
      signal: caller.signal,
    });
    return response.body;
  }

  /** The five CRUD calls of a collection; `:id` addresses one record below it. */
  function collection<T>(template: string) {
    const item = `${template}:id/`;
    return {
      list: (params: PathParams, p: ListParams = {}) => call<Page<T>>('GET', template, params, { query: { limit: p.limit, offset: p.offset } }),
      get: (params: PathParams) => call<T>('GET', item, params),
      create: (params: PathParams, body: unknown) => call<T>('POST', template, params, { body }),
      update: (params: PathParams, body: RestBody) => call<T>('PATCH', item, params, { body }),
      remove: (params: PathParams) => call<void>('DELETE', item, params),
      /** An extra endpoint below one record, e.g. `pause`. */
      action: <R>(method: HttpMethod, name: string, params: PathParams, body?: unknown) => call<R>(method, `${item}${name}/`, params, { body }),
      /** An extra endpoint on the collection itself, e.g. `bulk`. */
      extra: <R>(method: HttpMethod, name: string, params: PathParams, body?: unknown) => call<R>(method, `${template}${name}/`, params, { body }),
    };
  }

  const organizations = collection<Organization>(ORGANIZATIONS);
  const batchExports = collection<BatchExport>(`${ORGANIZATION}batch_exports/`);
  const domains = collection<Domain>(`${ORGANIZATION}domains/`);
  const invites = collection<Invite>(`${ORGANIZATION}invites/`);
  const members = collection<Member>(`${ORGANIZATION}members/`);
  const surveys = collection<Survey>(SURVEYS);
  // The family is a fixed word of the route, so it stays in the template that errors and metrics name.
  const pipeline = (family: PipelineFamily) => collection<PipelineItem>(`${ORGANIZATION}${segment(family)}/`);

  const org = (orgId: string) => ({ organization_id: orgId });
  const inOrg = (orgId: string, id: string | number) => ({ ...org(orgId), id });
  const project = (projectId: string) => ({ project_id: projectId });
  const inProject = (projectId: string, id: string) => ({ ...project(projectId), id });

  return {
    listOrganizations: (p) => organizations.list({}, p),
    getOrganization: (id) => organizations.get({ id }),
    createOrganization: (body) => organizations.create({}, body),
    updateOrganization: (id, body) => organizations.update({ id }, body),
    deleteOrganization: (id) => organizations.remove({ id }),

    listBatchExports: (orgId, p) => batchExports.list(org(orgId), p),
    getBatchExport: (orgId, id) => batchExports.get(inOrg(orgId, id)),
    createBatchExport: (orgId, body) => batchExports.create(org(orgId), body),
    updateBatchExport: (orgId, id, body) => batchExports.update(inOrg(orgId, id), body),
    deleteBatchExport: (orgId, id) => batchExports.remove(inOrg(orgId, id)),
    pauseBatchExport: (orgId, id, body) => batchExports.action('POST', 'pause', inOrg(orgId, id), body),
    unpauseBatchExport: (orgId, id, body) => batchExports.action('POST', 'unpause', inOrg(orgId, id), body),
    backfillBatchExport: (orgId, id, body) => batchExports.action('POST', 'backfill', inOrg(orgId, id), body),

    listDomains: (orgId, p) => domains.list(org(orgId), p),
    getDomain: (orgId, id) => domains.get(inOrg(orgId, id)),
    createDomain: (orgId, body) => domains.create(org(orgId), body),
    updateDomain: (orgId, id, body) => domains.update(inOrg(orgId, id), body),
    deleteDomain: (orgId, id) => domains.remove(inOrg(orgId, id)),
    verifyDomain: (orgId, id) => domains.action('POST', 'verify', inOrg(orgId, id)),

    listInvites: (orgId, p) => invites.list(org(orgId), p),
    createInvite: (orgId, body) => invites.create(org(orgId), body),
    deleteInvite: (orgId, id) => invites.remove(inOrg(orgId, id)),
    bulkCreateInvites: (orgId, list) => invites.extra('POST', 'bulk', org(orgId), list),

    listMembers: (orgId, p) => members.list(org(orgId), p),
    updateMember: (orgId, userUuid, body) => members.update(inOrg(orgId, userUuid), body),
    removeMember: (orgId, userUuid) => members.remove(inOrg(orgId, userUuid)),

    listPipelineItems: (family, orgId, p) => pipeline(family).list(org(orgId), p),
    getPipelineItem: (family, orgId, id) => pipeline(family).get(inOrg(orgId, id)),
    createPipelineItem: (family, orgId, body) => pipeline(family).create(org(orgId), body),
    updatePipelineItem: (family, orgId, id, body) => pipeline(family).update(inOrg(orgId, id), body),
    deletePipelineItem: (family, orgId, id) => pipeline(family).remove(inOrg(orgId, id)),
    checkPipelineItemForUpdates: (family, orgId, id) => pipeline(family).action('GET', 'check_for_updates', inOrg(orgId, id)),
    getPipelineItemSource: (family, orgId, id) => pipeline(family).action('GET', 'source', inOrg(orgId, id)),
    updatePipelineItemSource: (family, orgId, id, body) => pipeline(family).action('PATCH', 'update_source', inOrg(orgId, id), body),
    upgradePipelineItem: (family, orgId, id, body) => pipeline(family).action('POST', 'upgrade', inOrg(orgId, id), body),
    getPipelineFamilyActivity: (family, orgId) => pipeline(family).extra('GET', 'activity', org(orgId)),
    getPipelineFamilyExportsUnsubscribeConfigs: (family, orgId) => pipeline(family).extra('GET', 'exports_unsubscribe_configs', org(orgId)),
    getPipelineFamilyRepository: (family, orgId) => pipeline(family).extra('GET', 'repository', org(orgId)),
    getPipelineFamilyUnused: (family, orgId) => pipeline(family).extra('GET', 'unused', org(orgId)),

    listSurveys: (projectId, p) => surveys.list(project(projectId), p),
    getSurvey: (projectId, id) => surveys.get(inProject(projectId, id)),
    createSurvey: (projectId, body) => surveys.create(project(projectId), body),
    updateSurvey: (projectId, id, body) => surveys.update(inProject(projectId, id), body),
    deleteSurvey: (projectId, id) => surveys.remove(inProject(projectId, id)),
    getSurveysResponsesCount: (projectId) => surveys.extra('GET', 'responses_count', project(projectId)),
  };
}
