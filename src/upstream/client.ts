// A typed method per seed endpoint (section 4), bound to one caller's key. Every method is a route
// template, the shape its answer must have, and one generic call(); lists never follow the upstream's
// next/previous URLs. A client is made per GraphQL request, so the methods live on a class
// prototype: nothing to build per request.

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
} from '../wire/rest-types.ts';
import * as shape from './answer-shapes.ts';
import { buildPath, type PathParams, segment } from './paths.ts';
import type { HttpMethod, UpstreamTransport } from './transport/transport.ts';
import { UpstreamError } from './upstream-error.ts';

export interface ListParams {
  limit?: number;
  offset?: number;
}

/** A JSON object request body; PATCH bodies carry only the fields to change (`null` included). */
export type RestBody = Record<string, unknown>;

interface RestCaller {
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

/** The route templates of one REST collection and of one record in it (`:id`), and the shapes of their answers. */
interface Collection<T> {
  list: string;
  item: string;
  record: shape.AnswerShape<T>;
  /** The list envelope with every record on it checked. */
  page: shape.AnswerShape<Page<T>>;
}

const collection = <T>(list: string, record: shape.AnswerShape<T>): Collection<T> => ({
  list,
  item: `${list}:id/`,
  record,
  page: shape.pageOf(record),
});

const ORGANIZATION = '/api/organizations/:organization_id/';
const ORGANIZATIONS = collection('/api/organizations/', shape.isOrganization);
const BATCH_EXPORTS = collection(`${ORGANIZATION}batch_exports/`, shape.isBatchExport);
const DOMAINS = collection(`${ORGANIZATION}domains/`, shape.isDomain);
const INVITES = collection(`${ORGANIZATION}invites/`, shape.isInvite);
const MEMBERS = collection(`${ORGANIZATION}members/`, shape.isMember);
const SURVEYS = collection('/api/projects/:project_id/surveys/', shape.isSurvey);
// The family is a fixed word of the route, so it stays in the template that errors and metrics name.
const PIPELINE: Record<PipelineFamily, Collection<PipelineItem>> = {
  pipeline_destinations: collection(`${ORGANIZATION}${segment('pipeline_destinations')}/`, shape.isPipelineItem),
  pipeline_frontend_apps: collection(`${ORGANIZATION}${segment('pipeline_frontend_apps')}/`, shape.isPipelineItem),
  pipeline_import_apps: collection(`${ORGANIZATION}${segment('pipeline_import_apps')}/`, shape.isPipelineItem),
};
// What the subscriptions watch (src/schema/subscription.ts): a write is matched to them by path
// prefix, so they must build their paths from these very templates.
export const BATCH_EXPORT_ROUTE = BATCH_EXPORTS.item;
export const DOMAIN_ROUTE = DOMAINS.item;
export const MEMBERS_ROUTE = MEMBERS.list;
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

  /**
   * One call whose answer must have `expected` (none: a delete, whose answer is not read). An answer
   * of another shape is a malformed response (UPSTREAM_ERROR), like one that is not JSON.
   */
  #call<T>(
    method: HttpMethod,
    template: string,
    params: PathParams,
    expected: shape.AnswerShape<T> | undefined,
    body?: unknown,
    query?: Record<string, number | undefined>,
  ): Promise<T> {
    let path: string;
    try {
      path = buildPath(template, params);
    } catch (error) {
      return Promise.reject(error); // a bad id fails the call's promise, as from an async function
    }
    // `.then` rather than an async function: one promise per call instead of two.
    return this.transport
      .request<unknown>({
        method,
        path,
        route: template,
        query,
        body,
        key: this.caller.key,
        requestId: this.caller.requestId,
        signal: this.caller.signal,
        deadlineAt: this.caller.deadlineAt,
        answerShape: expected,
      })
      .then((response) => {
        if (expected && !expected(response.body)) {
          const { status, attempts, durationMs } = response;
          throw new UpstreamError({ kind: 'malformed', method, route: template, status, attempts, durationMs });
        }
        return response.body as T;
      });
  }

  #list<T>(collection: Collection<T>, params: PathParams, p: ListParams = {}): Promise<Page<T>> {
    return this.#call('GET', collection.list, params, collection.page, undefined, { limit: p.limit, offset: p.offset });
  }

  // 4.1
  listOrganizations(p?: ListParams) {
    return this.#list(ORGANIZATIONS, {}, p);
  }
  getOrganization(id: string) {
    return this.#call('GET', ORGANIZATIONS.item, { id }, ORGANIZATIONS.record);
  }
  createOrganization(body: RestBody) {
    return this.#call('POST', ORGANIZATIONS.list, {}, ORGANIZATIONS.record, body);
  }
  updateOrganization(id: string, body: RestBody) {
    return this.#call('PATCH', ORGANIZATIONS.item, { id }, ORGANIZATIONS.record, body);
  }
  deleteOrganization(id: string) {
    return this.#call<void>('DELETE', ORGANIZATIONS.item, { id }, undefined);
  }

  // 4.2
  listBatchExports(orgId: string, p?: ListParams) {
    return this.#list(BATCH_EXPORTS, org(orgId), p);
  }
  getBatchExport(orgId: string, id: string) {
    return this.#call('GET', BATCH_EXPORTS.item, inOrg(orgId, id), BATCH_EXPORTS.record);
  }
  createBatchExport(orgId: string, body: RestBody) {
    return this.#call('POST', BATCH_EXPORTS.list, org(orgId), BATCH_EXPORTS.record, body);
  }
  updateBatchExport(orgId: string, id: string, body: RestBody) {
    return this.#call('PATCH', BATCH_EXPORTS.item, inOrg(orgId, id), BATCH_EXPORTS.record, body);
  }
  deleteBatchExport(orgId: string, id: string) {
    return this.#call<void>('DELETE', BATCH_EXPORTS.item, inOrg(orgId, id), undefined);
  }
  pauseBatchExport(orgId: string, id: string, body?: RestBody) {
    return this.#call('POST', below(BATCH_EXPORTS.item, 'pause'), inOrg(orgId, id), shape.isPauseAnswer, body);
  }
  unpauseBatchExport(orgId: string, id: string, body?: RestBody) {
    return this.#call('POST', below(BATCH_EXPORTS.item, 'unpause'), inOrg(orgId, id), shape.isPauseAnswer, body);
  }
  backfillBatchExport(orgId: string, id: string, body: RestBody) {
    return this.#call('POST', below(BATCH_EXPORTS.item, 'backfill'), inOrg(orgId, id), shape.isBackfillAnswer, body);
  }

  // 4.3
  listDomains(orgId: string, p?: ListParams) {
    return this.#list(DOMAINS, org(orgId), p);
  }
  getDomain(orgId: string, id: string) {
    return this.#call('GET', DOMAINS.item, inOrg(orgId, id), DOMAINS.record);
  }
  createDomain(orgId: string, body: RestBody) {
    return this.#call('POST', DOMAINS.list, org(orgId), DOMAINS.record, body);
  }
  updateDomain(orgId: string, id: string, body: RestBody) {
    return this.#call('PATCH', DOMAINS.item, inOrg(orgId, id), DOMAINS.record, body);
  }
  deleteDomain(orgId: string, id: string) {
    return this.#call<void>('DELETE', DOMAINS.item, inOrg(orgId, id), undefined);
  }
  verifyDomain(orgId: string, id: string) {
    return this.#call('POST', below(DOMAINS.item, 'verify'), inOrg(orgId, id), DOMAINS.record);
  }

  // 4.4
  listInvites(orgId: string, p?: ListParams) {
    return this.#list(INVITES, org(orgId), p);
  }
  createInvite(orgId: string, body: RestBody) {
    return this.#call('POST', INVITES.list, org(orgId), INVITES.record, body);
  }
  deleteInvite(orgId: string, id: string) {
    return this.#call<void>('DELETE', INVITES.item, inOrg(orgId, id), undefined);
  }
  bulkCreateInvites(orgId: string, invites: object[]) {
    return this.#call('POST', below(INVITES.list, 'bulk'), org(orgId), shape.isBulkInvitesAnswer, invites);
  }

  // 4.5: members are addressed by their user's uuid
  listMembers(orgId: string, p?: ListParams) {
    return this.#list(MEMBERS, org(orgId), p);
  }
  updateMember(orgId: string, userUuid: string, body: RestBody) {
    return this.#call('PATCH', MEMBERS.item, inOrg(orgId, userUuid), MEMBERS.record, body);
  }
  removeMember(orgId: string, userUuid: string) {
    return this.#call<void>('DELETE', MEMBERS.item, inOrg(orgId, userUuid), undefined);
  }

  // 4.6
  listPipelineItems(family: PipelineFamily, orgId: string, p?: ListParams) {
    return this.#list(PIPELINE[family], org(orgId), p);
  }
  getPipelineItem(family: PipelineFamily, orgId: string, id: number) {
    return this.#call('GET', PIPELINE[family].item, inOrg(orgId, id), PIPELINE[family].record);
  }
  createPipelineItem(family: PipelineFamily, orgId: string, body: RestBody) {
    return this.#call('POST', PIPELINE[family].list, org(orgId), PIPELINE[family].record, body);
  }
  updatePipelineItem(family: PipelineFamily, orgId: string, id: number, body: RestBody) {
    return this.#call('PATCH', PIPELINE[family].item, inOrg(orgId, id), PIPELINE[family].record, body);
  }
  deletePipelineItem(family: PipelineFamily, orgId: string, id: number) {
    return this.#call<void>('DELETE', PIPELINE[family].item, inOrg(orgId, id), undefined);
  }
  checkPipelineItemForUpdates(family: PipelineFamily, orgId: string, id: number) {
    return this.#call('GET', below(PIPELINE[family].item, 'check_for_updates'), inOrg(orgId, id), shape.isCheckForUpdatesAnswer);
  }
  getPipelineItemSource(family: PipelineFamily, orgId: string, id: number) {
    return this.#call('GET', below(PIPELINE[family].item, 'source'), inOrg(orgId, id), shape.isAnyJson);
  }
  updatePipelineItemSource(family: PipelineFamily, orgId: string, id: number, body: RestBody) {
    return this.#call('PATCH', below(PIPELINE[family].item, 'update_source'), inOrg(orgId, id), shape.isPipelineItemOrOther, body);
  }
  upgradePipelineItem(family: PipelineFamily, orgId: string, id: number, body: RestBody) {
    return this.#call('POST', below(PIPELINE[family].item, 'upgrade'), inOrg(orgId, id), shape.isPipelineItemOrOther, body);
  }
  getPipelineFamilyActivity(family: PipelineFamily, orgId: string) {
    return this.#call('GET', below(PIPELINE[family].list, 'activity'), org(orgId), shape.isAnyJson);
  }
  getPipelineFamilyExportsUnsubscribeConfigs(family: PipelineFamily, orgId: string) {
    return this.#call('GET', below(PIPELINE[family].list, 'exports_unsubscribe_configs'), org(orgId), shape.isAnyJson);
  }
  getPipelineFamilyRepository(family: PipelineFamily, orgId: string) {
    return this.#call('GET', below(PIPELINE[family].list, 'repository'), org(orgId), shape.isAnyJson);
  }
  getPipelineFamilyUnused(family: PipelineFamily, orgId: string) {
    return this.#call('GET', below(PIPELINE[family].list, 'unused'), org(orgId), shape.isAnyJson);
  }

  // 4.7
  listSurveys(projectId: string, p?: ListParams) {
    return this.#list(SURVEYS, project(projectId), p);
  }
  getSurvey(projectId: string, id: string) {
    return this.#call('GET', SURVEYS.item, inProject(projectId, id), SURVEYS.record);
  }
  createSurvey(projectId: string, body: RestBody) {
    return this.#call('POST', SURVEYS.list, project(projectId), SURVEYS.record, body);
  }
  updateSurvey(projectId: string, id: string, body: RestBody) {
    return this.#call('PATCH', SURVEYS.item, inProject(projectId, id), SURVEYS.record, body);
  }
  deleteSurvey(projectId: string, id: string) {
    return this.#call<void>('DELETE', SURVEYS.item, inProject(projectId, id), undefined);
  }
  getSurveysResponsesCount(projectId: string) {
    return this.#call('GET', below(SURVEYS.list, 'responses_count'), project(projectId), shape.isAnyJson);
  }
}
