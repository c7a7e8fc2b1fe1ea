// One set of loaders per GraphQL request, built from that request's REST client (its caller's key).
// Each list's loader is made on first use: a request touches a few of the nine lists, and making
// the others (a DataLoader and five maps each) for every request would be waste.
import type { RestClient } from '../upstream/client.ts';
import type { BatchExport, Domain, Invite, Member, Organization, PipelineFamily, PipelineItem, Survey } from '../wire/rest-types.ts';
import { ResourceLoader } from './resource-loader.ts';
import {
  type BatchExportRecord,
  type DomainRecord,
  type InviteRecord,
  type MemberRecord,
  type OrganizationRecord,
  PIPELINE_TYPENAMES,
  type PipelineItemRecord,
  type SurveyRecord,
} from './tagged-records.ts';

type Rest = () => RestClient;

/** Tags in place by assignment: Object.assign would build a throwaway object per listed record. */
const underOrg =
  <T extends string>($type: T) =>
  <Raw extends object>(record: Raw, orgId: string) => {
    const tagged = record as Raw & { $type: T; $org: string };
    tagged.$type = $type;
    tagged.$org = orgId;
    return tagged;
  };

export class Loaders {
  #organizations?: ResourceLoader<Organization, OrganizationRecord>;
  #batchExports?: ResourceLoader<BatchExport, BatchExportRecord>;
  #domains?: ResourceLoader<Domain, DomainRecord>;
  #invites?: ResourceLoader<Invite, InviteRecord>;
  #members?: ResourceLoader<Member, MemberRecord>;
  #surveys?: ResourceLoader<Survey, SurveyRecord>;
  #memo?: Map<string, Promise<unknown>>;
  /** The three pipeline families' loaders, by REST path segment. */
  readonly pipeline: PipelineLoaders;

  /**
   * `rest` throws UNAUTHENTICATED when the request has no key, so nothing is called without one.
   * `maxScanPages` bounds a lookup of an invite or member, which pages through its organization's list.
   */
  constructor(
    private readonly rest: Rest,
    private readonly maxScanPages: number,
  ) {
    this.pipeline = new PipelineLoaders(rest);
  }

  get organizations() {
    const rest = this.rest;
    this.#organizations ??= new ResourceLoader({
      list: (_, p) => rest().listOrganizations(p),
      retrieve: (_, id) => rest().getOrganization(id),
      tag: (record) => Object.assign(record, { $type: 'Organization' as const }),
      idOf: (record) => record.id,
    });
    return this.#organizations;
  }

  get batchExports() {
    const rest = this.rest;
    this.#batchExports ??= new ResourceLoader({
      list: (orgId, p) => rest().listBatchExports(orgId, p),
      retrieve: (orgId, id) => rest().getBatchExport(orgId, id),
      tag: underOrg('BatchExport'),
      idOf: (record) => record.id,
    });
    return this.#batchExports;
  }

  get domains() {
    const rest = this.rest;
    this.#domains ??= new ResourceLoader({
      list: (orgId, p) => rest().listDomains(orgId, p),
      retrieve: (orgId, id) => rest().getDomain(orgId, id),
      tag: underOrg('Domain'),
      idOf: (record) => record.id,
    });
    return this.#domains;
  }

  get invites() {
    const rest = this.rest;
    this.#invites ??= new ResourceLoader({
      list: (orgId, p) => rest().listInvites(orgId, p),
      maxScanPages: this.maxScanPages,
      tag: underOrg('Invite'),
      idOf: (record) => record.id,
    });
    return this.#invites;
  }

  get members() {
    const rest = this.rest;
    this.#members ??= new ResourceLoader({
      list: (orgId, p) => rest().listMembers(orgId, p),
      maxScanPages: this.maxScanPages,
      tag: underOrg('Member'),
      idOf: (record) => record.id,
    });
    return this.#members;
  }

  get surveys() {
    const rest = this.rest;
    this.#surveys ??= new ResourceLoader({
      list: (projectId, p) => rest().listSurveys(projectId, p),
      retrieve: (projectId, id) => rest().getSurvey(projectId, id),
      tag: (record, projectId) => Object.assign(record, { $type: 'Survey' as const, $project: projectId }),
      idOf: (record) => record.id,
    });
    return this.#surveys;
  }

  /** Any other GET, made once per request however many fields ask for it. */
  once<T>(key: string, fetch: (client: RestClient) => Promise<T>): Promise<T> {
    this.#memo ??= new Map();
    const memo = this.#memo;
    let pending = memo.get(key) as Promise<T> | undefined;
    if (!pending) {
      pending = Promise.resolve().then(() => fetch(this.rest()));
      memo.set(key, pending);
    }
    return pending;
  }

  /** Forgets every memoised GET (after a write). */
  forgetOnce(): void {
    this.#memo?.clear();
  }
}

class PipelineLoaders {
  #loaders: Partial<Record<PipelineFamily, ResourceLoader<PipelineItem, PipelineItemRecord>>> = {};

  constructor(private readonly rest: Rest) {}

  get pipeline_destinations() {
    return this.of('pipeline_destinations');
  }

  get pipeline_frontend_apps() {
    return this.of('pipeline_frontend_apps');
  }

  get pipeline_import_apps() {
    return this.of('pipeline_import_apps');
  }

  private of(family: PipelineFamily): ResourceLoader<PipelineItem, PipelineItemRecord> {
    // Every resolver of a pipeline list asks for its loader: build its tagger only with the loader.
    const existing = this.#loaders[family];
    if (existing) return existing;
    const rest = this.rest;
    const underItsOrg = underOrg(PIPELINE_TYPENAMES[family]);
    const created = new ResourceLoader<PipelineItem, PipelineItemRecord>({
      list: (orgId, p) => rest().listPipelineItems(family, orgId, p),
      retrieve: (orgId, id) => rest().getPipelineItem(family, orgId, Number(id)),
      tag: (record, orgId) => {
        const tagged = underItsOrg(record, orgId) as PipelineItemRecord;
        tagged.$family = family;
        return tagged;
      },
      idOf: (record) => String(record.id),
    });
    this.#loaders[family] = created;
    return created;
  }
}

export function createLoaders(rest: Rest, maxScanPages: number): Loaders {
  return new Loaders(rest, maxScanPages);
}
