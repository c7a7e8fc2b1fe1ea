// What the gateway relies on in each upstream answer, checked once where it arrives (the REST
// client): the list envelope, record ids, and the nested objects and lists the schema walks. An
// answer that does not fit is an upstream failure of the field that asked for it, never a null
// parent record or a crash further in. Only that much is checked, by hand, because it runs for
// every record of every page; a leaf of the wrong type (a string for an Int, a malformed date) fails
// only its own field as it is serialized (src/schema/leaf-serializers.ts).
import type * as Rest from '../wire/rest-types.ts';
import { isUuid } from '../wire/uuid.ts';

/** Whether an answer has the shape the gateway relies on; the client refuses one that does not. */
export type AnswerShape<T> = (answer: unknown) => answer is T;

type Fields = Record<string, unknown>;

/** The largest GraphQL `Int`: ids and counts beyond it could not be served as `Int!`. */
const MAX_INT = 2_147_483_647;
/** A project id as a word (its global id and the surveys' REST path carry it). */
const PROJECT_ID_PATTERN = /^[\w-]+$/;

const isObject = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value);
/** A pipeline item's `id`, or a list's `count`: served as `Int!`. */
const isNonNegativeInt = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_INT;
/** An embedded record (`user`, `created_by`, `destination`, a flag): an upstream null is allowed. */
const isObjectOrNull = (value: unknown) => value == null || isObject(value);
/** A list the schema serves as a non-null list: null stands for an empty one. */
const isListOrNull = (value: unknown) => value == null || Array.isArray(value);

function everyItem(list: unknown, check: (item: unknown) => boolean): boolean {
  if (list == null) return true;
  if (!Array.isArray(list)) return false;
  for (const item of list) if (!check(item)) return false;
  return true;
}

/** A team names its project by `project_id`, or by its own `id` when it has none (Organization.projects). */
const isTeam = (team: unknown) => {
  if (!isObject(team)) return false;
  const projectId = team.project_id ?? team.id;
  return (typeof projectId === 'number' || typeof projectId === 'string') && PROJECT_ID_PATTERN.test(String(projectId));
};
const isRun = (run: unknown) => isObject(run) && isUuid(run.id);

export const isOrganization = (value: unknown): value is Rest.Organization =>
  isObject(value) && isUuid(value.id) && everyItem(value.teams, isTeam) && isListOrNull(value.available_product_features);

export const isBatchExport = (value: unknown): value is Rest.BatchExport =>
  isObject(value) && isUuid(value.id) && isObjectOrNull(value.destination) && everyItem(value.latest_runs, isRun);

export const isDomain = (value: unknown): value is Rest.Domain => isObject(value) && isUuid(value.id);

export const isInvite = (value: unknown): value is Rest.Invite => isObject(value) && isUuid(value.id) && isObjectOrNull(value.created_by);

/** A member's global id and its REST path carry its user's uuid. */
export const isMember = (value: unknown): value is Rest.Member =>
  isObject(value) && isUuid(value.id) && isObject(value.user) && isUuid(value.user.uuid);

export const isPipelineItem = (value: unknown): value is Rest.PipelineItem => isObject(value) && isNonNegativeInt(value.id);

export const isSurvey = (value: unknown): value is Rest.Survey =>
  isObject(value) &&
  isUuid(value.id) &&
  isObjectOrNull(value.linked_flag) &&
  isObjectOrNull(value.targeting_flag) &&
  isObjectOrNull(value.internal_targeting_flag) &&
  isObjectOrNull(value.created_by) &&
  isListOrNull(value.iteration_start_dates);

/** The list envelope (2.1) with every record checked; `count` is served as `totalCount: Int!`. */
export function pageOf<T>(isRecord: AnswerShape<T>): AnswerShape<Rest.Page<T>> {
  return (value: unknown): value is Rest.Page<T> =>
    isObject(value) && isNonNegativeInt(value.count) && Array.isArray(value.results) && everyItem(value.results, isRecord);
}

/**
 * An action's answer: the record as the seed documents it, or the live service's own shape. An
 * answer that carries an `id` is taken for the record (src/schema/mutations/record-mutations.ts), so it must be one.
 */
function recordOr<T, Live>(isRecord: AnswerShape<T>, isLive: (answer: Fields) => boolean): AnswerShape<T | Live> {
  return (value: unknown): value is T | Live => isObject(value) && ('id' in value ? isRecord(value) : isLive(value));
}

export const isPauseAnswer: AnswerShape<Rest.PauseAnswer> = recordOr(isBatchExport, (answer) => typeof answer.paused === 'boolean');

export const isBackfillAnswer: AnswerShape<Rest.BackfillAnswer> = recordOr(
  isBatchExport,
  (answer) => typeof answer.backfill_id === 'string' || Number.isFinite(answer.backfill_id),
);

export const isBulkInvitesAnswer = (value: unknown): value is Rest.BulkInvitesAnswer =>
  Array.isArray(value) ? everyItem(value, isInvite) : isInvite(value);

export const isCheckForUpdatesAnswer: AnswerShape<Rest.CheckForUpdatesAnswer> = recordOr(isPipelineItem, (answer) =>
  isPipelineItem(answer.plugin),
);

/** update_source and upgrade: the item, or (live) its source files by name. */
export const isPipelineItemOrOther: AnswerShape<unknown> = recordOr(isPipelineItem, () => true);

/** A GET whose body is passed through as `JSON`: any JSON value, but there must be one. */
export const isAnyJson = (value: unknown): value is unknown => value !== undefined;
