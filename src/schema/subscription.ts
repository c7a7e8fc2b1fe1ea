// Subscription (contract: Subscriptions): each field watches one record, or the first page of an
// organization's members, through a poll this instance shares between the subscribers of the same
// key (src/subscriptions). The first event is the current state; later ones come when the
// subscriber's selected data changed (src/subscriptions/plugins.ts).
import type { GatewayContext } from '../context.ts';
import type { Loaders } from '../loaders/index.ts';
import { DEFAULT_PAGE_SIZE } from '../loaders/page-size.ts';
import type { MemberRecord } from '../loaders/tagged-records.ts';
import type { PollEvent } from '../subscriptions/watched.ts';
import { BATCH_EXPORT_ROUTE, DOMAIN_ROUTE, MEMBERS_ROUTE } from '../upstream/client.ts';
import { buildPath } from '../upstream/paths.ts';
import { builder } from './builder.ts';
import { checkSize, fetchRange, resolveRestConnection } from './connection.ts';
import { MemberConnection } from './member.ts';
import { parseNodeId } from './node-registry.ts';
import { BatchExportRef, DomainRef } from './refs.ts';
import { requiresScope } from './scopes.ts';

const POLLED =
  'The first event is the current state; then one each time the selected fields change, polled every `SUBSCRIPTION_POLL_MS` ' +
  '(one poll per key and record on this instance, however many subscribe) and within about a second after a mutation through this gateway that may have changed it. A 429 is an error event `RATE_LIMITED` and the stream goes on; a record that is gone ends it with `NOT_FOUND`.';

/** An error event of the poll becomes the field's error (the stream goes on, or ends after it: src/subscriptions/poller.ts). */
function recordOf<T>(event: PollEvent<T>): T {
  if ('error' in event) throw event.error;
  return event.record;
}

/** The REST ids a subscription argument's global id carries; BAD_USER_INPUT (no upstream call) when it is not one of `typename`. */
const idParts = (id: string, argName: string, typename: string) => parseNodeId(id, argName, [typename]).parts as [string, ...string[]];

/** Watches a record under an organization by its REST retrieve (`route`), from its global id. */
function watchRecord<R>(
  context: GatewayContext,
  globalId: string,
  typename: string,
  route: string,
  list: (loaders: Loaders) => { byId(orgId: string, id: string): Promise<R | null> },
) {
  const [orgId, id] = idParts(globalId, 'id', typename) as [string, string];
  return context.watch({
    key: `${typename} ${orgId} ${id}`,
    path: buildPath(route, { organization_id: orgId, id }),
    fetch: (loaders) => list(loaders).byId(orgId, id),
  });
}

builder.subscriptionField('batchExport', (t) =>
  t.field({
    type: BatchExportRef,
    description: `A batch export and its \`latestRuns\`. ${POLLED} ${requiresScope('batch_export:read')}`,
    args: { id: t.arg.id({ required: true, description: 'The global id of the batch export.' }) },
    subscribe: (_root, { id }, context) => watchRecord(context, id, 'BatchExport', BATCH_EXPORT_ROUTE, (loaders) => loaders.batchExports),
    resolve: recordOf,
  }),
);

builder.subscriptionField('domain', (t) =>
  t.field({
    type: DomainRef,
    description: `A domain of an organization, e.g. until it is verified. ${POLLED} ${requiresScope('organization:read')}`,
    args: { id: t.arg.id({ required: true, description: 'The global id of the domain.' }) },
    subscribe: (_root, { id }, context) => watchRecord(context, id, 'Domain', DOMAIN_ROUTE, (loaders) => loaders.domains),
    resolve: recordOf,
  }),
);

interface MembersPage {
  count: number;
  records: MemberRecord[];
}

builder.subscriptionField('organizationMembers', (t) =>
  t.field({
    type: MemberConnection,
    nullable: false,
    description:
      `The first page of an organization's members and their \`totalCount\`; an event when either changed. ${POLLED} ` +
      `Its cursors are those of \`Organization.members\`, to page on there. ${requiresScope('organization_member:read')}`,
    args: {
      organizationId: t.arg.id({ required: true, description: 'The global id of the organization.' }),
      first: t.arg.int({ description: `The size of the first page (0-100; ${DEFAULT_PAGE_SIZE} when not given).` }),
    },
    subscribe: (_root, { organizationId, first }, context) => {
      const [orgId] = idParts(organizationId, 'organizationId', 'Organization');
      const size = checkSize(first, 'first') ?? DEFAULT_PAGE_SIZE;
      return context.watch<MembersPage>({
        key: `organizationMembers ${orgId} ${size}`,
        path: buildPath(MEMBERS_ROUTE, { organization_id: orgId }),
        fetch: (loaders) =>
          fetchRange(
            { page: (limit, offset) => loaders.members.page(orgId, limit, offset), count: () => loaders.members.count(orgId) },
            0,
            size,
          ),
      });
    },
    // The page the poll fetched, as `Organization.members(first:)` would show it: no upstream call here.
    resolve: (event, { organizationId, first }, _context, info) => {
      const { count, records } = recordOf(event);
      const [orgId] = idParts(organizationId, 'organizationId', 'Organization');
      return resolveRestConnection(`members:${orgId}`, { first: first ?? DEFAULT_PAGE_SIZE }, info, {
        page: async (limit, offset) => ({ count, next: null, previous: null, results: records.slice(offset, offset + limit) }),
        count: async () => count,
      });
    },
  }),
);
