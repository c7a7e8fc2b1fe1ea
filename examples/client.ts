// What a frontend does in its first hour with the gateway, as a script: the operations in
// examples/operations/*.graphql, run with @urql/core and the typed documents `npm run codegen`
// generates from them (examples/generated/), so every variable and result field is type-checked.
//
//   GATEWAY_KEY=<key> npm run example            # against http://localhost:4000/graphql
//   GATEWAY_URL=https://…/graphql GATEWAY_KEY=<key> GATEWAY_PERSISTED=apq npm run example
//
// GATEWAY_PERSISTED: `off` (default) sends the query text; `apq` sends the sha256 hash of the text
// first and the text only when the gateway does not know it yet (automatic persisted queries);
// `manifest` sends only the hash codegen put into persisted-documents.json, for a gateway started
// with PERSISTED_OPERATIONS=examples/generated/persisted-documents.json.
import { pathToFileURL } from 'node:url';
import { type AnyVariables, Client, type Exchange, fetchExchange, type TypedDocumentNode } from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import {
  BatchExportsPageDocument,
  type BatchExportsPageQuery,
  DashboardDocument,
  InviteMembersDocument,
  PauseBatchExportDocument,
  UnpauseBatchExportDocument,
} from './generated/graphql.ts';

export type PersistedMode = 'off' | 'apq' | 'manifest';

export function createGatewayClient(options: { url: string; key: string; persisted?: PersistedMode }): Client {
  const persisted: Exchange[] = [];
  if (options.persisted === 'apq') persisted.push(persistedExchange({ enableForMutation: true }));
  if (options.persisted === 'manifest') {
    persisted.push(
      persistedExchange({
        enableForMutation: true,
        enforcePersistedQueries: true,
        // codegen's hash of the document, which is the manifest's id for it
        generateHash: async (_query, document) => (document as { __meta__?: { hash?: string } }).__meta__?.hash ?? '',
      }),
    );
  }
  return new Client({
    url: options.url,
    exchanges: [...persisted, fetchExchange],
    fetchOptions: () => ({ headers: { authorization: `Bearer ${options.key}` } }),
  });
}

/** Runs a query; a GraphQL error (see the README's error codes) or a network failure throws. */
export async function query<Data, Variables extends AnyVariables>(
  client: Client,
  document: TypedDocumentNode<Data, Variables>,
  variables: Variables,
): Promise<Data> {
  return dataOf(await client.query(document, variables).toPromise());
}

export async function mutate<Data, Variables extends AnyVariables>(
  client: Client,
  document: TypedDocumentNode<Data, Variables>,
  variables: Variables,
): Promise<Data> {
  return dataOf(await client.mutation(document, variables).toPromise());
}

function dataOf<Data>(result: { data?: Data; error?: Error }): Data {
  if (result.error) throw result.error;
  if (result.data === undefined) throw new Error('The gateway answered without data.');
  return result.data;
}

/** Every batch export of an organization, page by page: `after` is the previous page's `endCursor`. */
export async function allBatchExports(client: Client, organization: string, pageSize = 10) {
  type Page = NonNullable<NonNullable<BatchExportsPageQuery['organization']>['batchExports']>;
  const exports: Page['nodes'] = [];
  let after: string | null = null;
  let pages = 0;
  do {
    const data: BatchExportsPageQuery = await query(client, BatchExportsPageDocument, { organization, first: pageSize, after });
    const page = data.organization?.batchExports;
    if (!page) throw new Error(`Organization ${organization} not found.`);
    exports.push(...page.nodes);
    pages += 1;
    after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
  } while (after);
  return { exports, pages };
}

/** The whole tour, as a frontend would do it; returns what it saw. */
export async function firstHour(client: Client, log: (line: string) => void = console.log) {
  const { organizations } = await query(client, DashboardDocument, {});
  log(`${organizations.totalCount} organizations:`);
  for (const org of organizations.nodes) {
    const exports = org.batchExports;
    log(
      `  ${org.name}: batch exports ${exports?.totalCount ?? '?'}, members ${org.members?.nodes.length ?? '?'}, projects ${org.projects.length}`,
    );
  }
  const org = organizations.nodes[0];
  if (!org) throw new Error('The key sees no organization.');

  const { exports, pages } = await allBatchExports(client, org.databaseId);
  log(`${org.name}: read ${exports.length} batch exports in ${pages} pages of at most 10`);

  const running = exports.find((e) => e.paused === false);
  let paused: string | undefined;
  if (running) {
    const { pauseBatchExport: result } = await mutate(client, PauseBatchExportDocument, { id: running.id });
    if (result.__typename !== 'PauseBatchExportPayload') throw new Error(`pause: ${result.message}`);
    log(`paused "${result.batchExport.name}" at ${result.batchExport.lastPausedAt}`);
    paused = result.batchExport.name ?? running.id;
    const { unpauseBatchExport: again } = await mutate(client, UnpauseBatchExportDocument, { id: running.id });
    if (again.__typename !== 'UnpauseBatchExportPayload') throw new Error(`unpause: ${again.message}`);
    log(`unpaused it again (paused: ${again.batchExport.paused})`);
  }

  const { bulkCreateInvites: invited } = await mutate(client, InviteMembersDocument, {
    organizationId: org.id,
    invites: [
      { targetEmail: 'new-hire-1@hedgehog.example', firstName: 'Nia', level: 1 },
      { targetEmail: 'new-hire-2@hedgehog.example', firstName: 'Noor', level: 1 },
    ],
  });
  if (invited.__typename === 'ValidationError') throw new Error(`invite: ${invited.field ?? ''} ${invited.message}`);
  if (invited.__typename === 'NotFoundError') throw new Error(`invite: ${invited.message}`);
  log(`invited ${invited.invites.map((i) => i.targetEmail).join(', ')}`);

  return {
    organizations: organizations.nodes.map((o) => o.name),
    batchExports: exports.length,
    pages,
    paused,
    invited: invited.invites.map((i) => i.targetEmail),
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const key = process.env.GATEWAY_KEY;
  const persisted = (process.env.GATEWAY_PERSISTED || 'off') as PersistedMode;
  if (!key) {
    console.error('Set GATEWAY_KEY to your key (`npm start` prints the demo key).');
    process.exit(2);
  }
  if (!['off', 'apq', 'manifest'].includes(persisted)) {
    console.error('GATEWAY_PERSISTED must be off, apq or manifest.');
    process.exit(2);
  }
  const client = createGatewayClient({ url: process.env.GATEWAY_URL || 'http://localhost:4000/graphql', key, persisted });
  firstHour(client).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
