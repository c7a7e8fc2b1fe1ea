// A typed method per seed endpoint (section 4), bound to one caller's key. Every method is a route
// template plus one generic call(); lists never follow the upstream's next/previous URLs. A client is
// made per GraphQL request, so the methods live on a class prototype: nothing to build per request.
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
  /** The request's deadline as a `performance.now()` time (see UpstreamRequest.deadlineAt). */
  deadlineAt?: number;
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

/** The route templates of one REST collection and of one record in it (`:id`). */
interface Collection {
  list: string;
  item: string;
}

const collection = (list: string): Collection => ({ list, item: `${list}:id/` });

const ORGANIZATION = '/api/organizations/:organization_id/';
const ORGANIZATIONS = collection('/api/organizations/');
const BATCH_EXPORTS = collection(`${ORGANIZATION}batch_exports/`);
const DOMAINS = collection(`${ORGANIZATION}domains/`);
const INVITES = collection(`${ORGANIZATION}invites/`);
const MEMBERS = collection(`${ORGANIZATION}members/`);
const SURVEYS = collection('/api/projects/:project_id/surveys/');
// The family is a fixed word of the route, so it stays in the template that errors and metrics name.
const PIPELINE: Record<PipelineFamily, Collection> = {
  pipeline_destinations: collection(`${ORGANIZATION}${segment('pipeline_destinations')}/`),
  pipeline_frontend_apps: collection(`${ORGANIZATION}${segment('pipeline_frontend_apps')}/`),
  pipeline_import_apps: collection(`${ORGANIZATION}${segment('pipeline_import_apps')}/`),
};
/** An extra endpoint below one record (e.g. `pause`) or on the collection itself (e.g. `bulk`). */
const below = (template: string, name: string) => `${template}${name}/`;

const org = (orgId: string): PathParams => ({ organization_id: orgId });
const inOrg = (orgId: string, id: string | number): PathParams => ({ organization_id: orgId, id });
const project = (projectId: string): PathParams => ({ project_id: projectId });
const inProject = (projectId: string, id: string): PathParams => ({ project_id: projectId, id });

export function createRestClient(transport: UpstreamTransport, caller: RestCaller): RestClient {
  return new CallerRestClient(transport, caller);
}

class CallerRestClient implements RestClient {
  constructor(
    private readonly transport: UpstreamTransport,
    private readonly caller: RestCaller,
  ) {}

  async #call<T>(method: HttpMethod, template: string, params: PathParams, body?: unknown, query?: Record<string, number | undefined>): Promise<T> {
    const response = await this.transport.request<T>({
      method,
      path: buildPath(template, params),
      route: template,
      query,
      body,
      key: this.caller.key,
      requestId: this.caller.requestId,
      signal: this.caller.signal,
      deadlineAt: this.caller.deadlineAt,
    });
    return response.body;
  }

  #list<T>(collection: Collection, params: PathParams, p: ListParams = {}): Promise<Page<T>> {
    return this.#call<Page<T>>('GET', collection.list, params, undefined, { limit: p.limit, offset: p.offset });
  }

  // 4.1
  listOrganizations(p?: ListParams) {
    return this.#list<Organization>(ORGANIZATIONS, {}, p);
  }
  getOrganization(id: string) {
    return this.#call<Organization>('GET', ORGANIZATIONS.item, { id });
  }
  createOrganization(body: RestBody) {
    return this.#call<Organization>('POST', ORGANIZATIONS.list, {}, body);
  }
  updateOrganization(id: string, body: RestBody) {
    return this.#call<Organization>('PATCH', ORGANIZATIONS.item, { id }, body);
  }
  deleteOrganization(id: string) {
    return this.#call<void>('DELETE', ORGANIZATIONS.item, { id });
  }

  // 4.2
  listBatchExports(orgId: string, p?: ListParams) {
    return this.#list<BatchExport>(BATCH_EXPORTS, org(orgId), p);
  }
  getBatchExport(orgId: string, id: string) {
    return this.#call<BatchExport>('GET', BATCH_EXPORTS.item, inOrg(orgId, id));
  }
  createBatchExport(orgId: string, body: RestBody) {
    return this.#call<BatchExport>('POST', BATCH_EXPORTS.list, org(orgId), body);
  }
  updateBatchExport(orgId: string, id: string, body: RestBody) {
    return this.#call<BatchExport>('PATCH', BATCH_EXPORTS.item, inOrg(orgId, id), body);
  }
  deleteBatchExport(orgId: string, id: string) {
    return this.#call<void>('DELETE', BATCH_EXPORTS.item, inOrg(orgId, id));
  }
  pauseBatchExport(orgId: string, id: string, body?: RestBody) {
    return this.#call<PauseAnswer>('POST', below(BATCH_EXPORTS.item, 'pause'), inOrg(orgId, id), body);
  }
  unpauseBatchExport(orgId: string, id: string, body?: RestBody) {
    return this.#call<PauseAnswer>('POST', below(BATCH_EXPORTS.item, 'unpause'), inOrg(orgId, id), body);
  }
  backfillBatchExport(orgId: string, id: string, body: RestBody) {
    return this.#call<BackfillAnswer>('POST', below(BATCH_EXPORTS.item, 'backfill'), inOrg(orgId, id), body);
  }

  // 4.3
  listDomains(orgId: string, p?: ListParams) {
    return this.#list<Domain>(DOMAINS, org(orgId), p);
  }
  getDomain(orgId: string, id: string) {
    return this.#call<Domain>('GET', DOMAINS.item, inOrg(orgId, id));
  }
  createDomain(orgId: string, body: RestBody) {
    return this.#call<Domain>('POST', DOMAINS.list, org(orgId), body);
  }
  updateDomain(orgId: string, id: string, body: RestBody) {
    return this.#call<Domain>('PATCH', DOMAINS.item, inOrg(orgId, id), body);
  }
  deleteDomain(orgId: string, id: string) {
    return this.#call<void>('DELETE', DOMAINS.item, inOrg(orgId, id));
  }
  verifyDomain(orgId: string, id: string) {
    return this.#call<Domain>('POST', below(DOMAINS.item, 'verify'), inOrg(orgId, id));
  }

  // 4.4
  listInvites(orgId: string, p?: ListParams) {
    return this.#list<Invite>(INVITES, org(orgId), p);
  }
  createInvite(orgId: string, body: RestBody) {
    return this.#call<Invite>('POST', INVITES.list, org(orgId), body);
  }
  deleteInvite(orgId: string, id: string) {
    return this.#call<void>('DELETE', INVITES.item, inOrg(orgId, id));
  }
  bulkCreateInvites(orgId: string, invites: object[]) {
    return this.#call<BulkInvitesAnswer>('POST', below(INVITES.list, 'bulk'), org(orgId), invites);
  }

  // 4.5: members are addressed by their user's uuid
  listMembers(orgId: string, p?: ListParams) {
    return this.#list<Member>(MEMBERS, org(orgId), p);
  }
  updateMember(orgId: string, userUuid: string, body: RestBody) {
    return this.#call<Member>('PATCH', MEMBERS.item, inOrg(orgId, userUuid), body);
  }
  removeMember(orgId: string, userUuid: string) {
    return this.#call<void>('DELETE', MEMBERS.item, inOrg(orgId, userUuid));
  }

  // 4.6
  listPipelineItems(family: PipelineFamily, orgId: string, p?: ListParams) {
    return this.#list<PipelineItem>(PIPELINE[family], org(orgId), p);
  }
  getPipelineItem(family: PipelineFamily, orgId: string, id: number) {
    return this.#call<PipelineItem>('GET', PIPELINE[family].item, inOrg(orgId, id));
  }
  createPipelineItem(family: PipelineFamily, orgId: string, body: RestBody) {
    return this.#call<PipelineItem>('POST', PIPELINE[family].list, org(orgId), body);
  }
  updatePipelineItem(family: PipelineFamily, orgId: string, id: number, body: RestBody) {
    return this.#call<PipelineItem>('PATCH', PIPELINE[family].item, inOrg(orgId, id), body);
  }
  deletePipelineItem(family: PipelineFamily, orgId: string, id: number) {
    return this.#call<void>('DELETE', PIPELINE[family].item, inOrg(orgId, id));
  }
  checkPipelineItemForUpdates(family: PipelineFamily, orgId: string, id: number) {
    return this.#call<CheckForUpdatesAnswer>('GET', below(PIPELINE[family].item, 'check_for_updates'), inOrg(orgId, id));
  }
  getPipelineItemSource(family: PipelineFamily, orgId: string, id: number) {
    return this.#call<unknown>('GET', below(PIPELINE[family].item, 'source'), inOrg(orgId, id));
  }
  updatePipelineItemSource(family: PipelineFamily, orgId: string, id: number, body: RestBody) {
    return this.#call<unknown>('PATCH', below(PIPELINE[family].item, 'update_source'), inOrg(orgId, id), body);
  }
  upgradePipelineItem(family: PipelineFamily, orgId: string, id: number, body: RestBody) {
    return this.#call<unknown>('POST', below(PIPELINE[family].item, 'upgrade'), inOrg(orgId, id), body);
  }
  getPipelineFamilyActivity(family: PipelineFamily, orgId: string) {
    return this.#call<unknown>('GET', below(PIPELINE[family].list, 'activity'), org(orgId));
  }
  getPipelineFamilyExportsUnsubscribeConfigs(family: PipelineFamily, orgId: string) {
    return this.#call<unknown>('GET', below(PIPELINE[family].list, 'exports_unsubscribe_configs'), org(orgId));
  }
  getPipelineFamilyRepository(family: PipelineFamily, orgId: string) {
    return this.#call<unknown>('GET', below(PIPELINE[family].list, 'repository'), org(orgId));
  }
  getPipelineFamilyUnused(family: PipelineFamily, orgId: string) {
    return this.#call<unknown>('GET', below(PIPELINE[family].list, 'unused'), org(orgId));
  }

  // 4.7
  listSurveys(projectId: string, p?: ListParams) {
    return this.#list<Survey>(SURVEYS, project(projectId), p);
  }
  getSurvey(projectId: string, id: string) {
    return this.#call<Survey>('GET', SURVEYS.item, inProject(projectId, id));
  }
  createSurvey(projectId: string, body: RestBody) {
    return this.#call<Survey>('POST', SURVEYS.list, project(projectId), body);
  }
  updateSurvey(projectId: string, id: string, body: RestBody) {
    return this.#call<Survey>('PATCH', SURVEYS.item, inProject(projectId, id), body);
  }
  deleteSurvey(projectId: string, id: string) {
    return this.#call<void>('DELETE', SURVEYS.item, inProject(projectId, id));
  }
  getSurveysResponsesCount(projectId: string) {
    return this.#call<unknown>('GET', below(SURVEYS.list, 'responses_count'), project(projectId));
  }
}
