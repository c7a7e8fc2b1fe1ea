/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query BatchExportsPage($organization: UUID!, $first: Int!, $after: String) {\n  organization(databaseId: $organization) {\n    batchExports(first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      nodes {\n        id\n        databaseId\n        name\n        interval\n        paused\n      }\n    }\n  }\n}": typeof types.BatchExportsPageDocument,
    "query Dashboard {\n  organizations(first: 2) {\n    totalCount\n    nodes {\n      id\n      databaseId\n      name\n      batchExports(first: 5) {\n        totalCount\n        nodes {\n          id\n          name\n          interval\n          paused\n        }\n      }\n      domains {\n        nodes {\n          id\n          domain\n          isVerified\n        }\n      }\n      members {\n        nodes {\n          id\n          level\n          user {\n            email\n          }\n        }\n      }\n      invites {\n        nodes {\n          id\n          targetEmail\n          isExpired\n        }\n      }\n      pipelineDestinations {\n        nodes {\n          id\n          name\n        }\n      }\n      projects {\n        id\n        name\n        surveys(first: 5) {\n          totalCount\n          nodes {\n            id\n            name\n            type\n          }\n        }\n      }\n    }\n  }\n}": typeof types.DashboardDocument,
    "mutation InviteMembers($organizationId: ID!, $invites: [InviteInput!]!) {\n  bulkCreateInvites(input: {organizationId: $organizationId, invites: $invites}) {\n    __typename\n    ... on BulkCreateInvitesPayload {\n      invites {\n        id\n        targetEmail\n        level\n        isExpired\n      }\n    }\n    ... on NotFoundError {\n      message\n    }\n    ... on ValidationError {\n      message\n      field\n      code\n    }\n  }\n}": typeof types.InviteMembersDocument,
    "mutation PauseBatchExport($id: ID!) {\n  pauseBatchExport(input: {id: $id}) {\n    __typename\n    ... on PauseBatchExportPayload {\n      batchExport {\n        id\n        name\n        paused\n        lastPausedAt\n      }\n    }\n    ... on NotFoundError {\n      message\n    }\n    ... on ValidationError {\n      message\n      field\n      code\n    }\n  }\n}\n\nmutation UnpauseBatchExport($id: ID!) {\n  unpauseBatchExport(input: {id: $id}) {\n    __typename\n    ... on UnpauseBatchExportPayload {\n      batchExport {\n        id\n        name\n        paused\n      }\n    }\n    ... on NotFoundError {\n      message\n    }\n    ... on ValidationError {\n      message\n      field\n      code\n    }\n  }\n}": typeof types.PauseBatchExportDocument,
};
const documents: Documents = {
    "query BatchExportsPage($organization: UUID!, $first: Int!, $after: String) {\n  organization(databaseId: $organization) {\n    batchExports(first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      nodes {\n        id\n        databaseId\n        name\n        interval\n        paused\n      }\n    }\n  }\n}": types.BatchExportsPageDocument,
    "query Dashboard {\n  organizations(first: 2) {\n    totalCount\n    nodes {\n      id\n      databaseId\n      name\n      batchExports(first: 5) {\n        totalCount\n        nodes {\n          id\n          name\n          interval\n          paused\n        }\n      }\n      domains {\n        nodes {\n          id\n          domain\n          isVerified\n        }\n      }\n      members {\n        nodes {\n          id\n          level\n          user {\n            email\n          }\n        }\n      }\n      invites {\n        nodes {\n          id\n          targetEmail\n          isExpired\n        }\n      }\n      pipelineDestinations {\n        nodes {\n          id\n          name\n        }\n      }\n      projects {\n        id\n        name\n        surveys(first: 5) {\n          totalCount\n          nodes {\n            id\n            name\n            type\n          }\n        }\n      }\n    }\n  }\n}": types.DashboardDocument,
    "mutation InviteMembers($organizationId: ID!, $invites: [InviteInput!]!) {\n  bulkCreateInvites(input: {organizationId: $organizationId, invites: $invites}) {\n    __typename\n    ... on BulkCreateInvitesPayload {\n      invites {\n        id\n        targetEmail\n        level\n        isExpired\n      }\n    }\n    ... on NotFoundError {\n      message\n    }\n    ... on ValidationError {\n      message\n      field\n      code\n    }\n  }\n}": types.InviteMembersDocument,
    "mutation PauseBatchExport($id: ID!) {\n  pauseBatchExport(input: {id: $id}) {\n    __typename\n    ... on PauseBatchExportPayload {\n      batchExport {\n        id\n        name\n        paused\n        lastPausedAt\n      }\n    }\n    ... on NotFoundError {\n      message\n    }\n    ... on ValidationError {\n      message\n      field\n      code\n    }\n  }\n}\n\nmutation UnpauseBatchExport($id: ID!) {\n  unpauseBatchExport(input: {id: $id}) {\n    __typename\n    ... on UnpauseBatchExportPayload {\n      batchExport {\n        id\n        name\n        paused\n      }\n    }\n    ... on NotFoundError {\n      message\n    }\n    ... on ValidationError {\n      message\n      field\n      code\n    }\n  }\n}": types.PauseBatchExportDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query BatchExportsPage($organization: UUID!, $first: Int!, $after: String) {\n  organization(databaseId: $organization) {\n    batchExports(first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      nodes {\n        id\n        databaseId\n        name\n        interval\n        paused\n      }\n    }\n  }\n}"): (typeof documents)["query BatchExportsPage($organization: UUID!, $first: Int!, $after: String) {\n  organization(databaseId: $organization) {\n    batchExports(first: $first, after: $after) {\n      totalCount\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n      nodes {\n        id\n        databaseId\n        name\n        interval\n        paused\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query Dashboard {\n  organizations(first: 2) {\n    totalCount\n    nodes {\n      id\n      databaseId\n      name\n      batchExports(first: 5) {\n        totalCount\n        nodes {\n          id\n          name\n          interval\n          paused\n        }\n      }\n      domains {\n        nodes {\n          id\n          domain\n          isVerified\n        }\n      }\n      members {\n        nodes {\n          id\n          level\n          user {\n            email\n          }\n        }\n      }\n      invites {\n        nodes {\n          id\n          targetEmail\n          isExpired\n        }\n      }\n      pipelineDestinations {\n        nodes {\n          id\n          name\n        }\n      }\n      projects {\n        id\n        name\n        surveys(first: 5) {\n          totalCount\n          nodes {\n            id\n            name\n            type\n          }\n        }\n      }\n    }\n  }\n}"): (typeof documents)["query Dashboard {\n  organizations(first: 2) {\n    totalCount\n    nodes {\n      id\n      databaseId\n      name\n      batchExports(first: 5) {\n        totalCount\n        nodes {\n          id\n          name\n          interval\n          paused\n        }\n      }\n      domains {\n        nodes {\n          id\n          domain\n          isVerified\n        }\n      }\n      members {\n        nodes {\n          id\n          level\n          user {\n            email\n          }\n        }\n      }\n      invites {\n        nodes {\n          id\n          targetEmail\n          isExpired\n        }\n      }\n      pipelineDestinations {\n        nodes {\n          id\n          name\n        }\n      }\n      projects {\n        id\n        name\n        surveys(first: 5) {\n          totalCount\n          nodes {\n            id\n            name\n            type\n          }\n        }\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation InviteMembers($organizationId: ID!, $invites: [InviteInput!]!) {\n  bulkCreateInvites(input: {organizationId: $organizationId, invites: $invites}) {\n    __typename\n    ... on BulkCreateInvitesPayload {\n      invites {\n        id\n        targetEmail\n        level\n        isExpired\n      }\n    }\n    ... on NotFoundError {\n      message\n    }\n    ... on ValidationError {\n      message\n      field\n      code\n    }\n  }\n}"): (typeof documents)["mutation InviteMembers($organizationId: ID!, $invites: [InviteInput!]!) {\n  bulkCreateInvites(input: {organizationId: $organizationId, invites: $invites}) {\n    __typename\n    ... on BulkCreateInvitesPayload {\n      invites {\n        id\n        targetEmail\n        level\n        isExpired\n      }\n    }\n    ... on NotFoundError {\n      message\n    }\n    ... on ValidationError {\n      message\n      field\n      code\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation PauseBatchExport($id: ID!) {\n  pauseBatchExport(input: {id: $id}) {\n    __typename\n    ... on PauseBatchExportPayload {\n      batchExport {\n        id\n        name\n        paused\n        lastPausedAt\n      }\n    }\n    ... on NotFoundError {\n      message\n    }\n    ... on ValidationError {\n      message\n      field\n      code\n    }\n  }\n}\n\nmutation UnpauseBatchExport($id: ID!) {\n  unpauseBatchExport(input: {id: $id}) {\n    __typename\n    ... on UnpauseBatchExportPayload {\n      batchExport {\n        id\n        name\n        paused\n      }\n    }\n    ... on NotFoundError {\n      message\n    }\n    ... on ValidationError {\n      message\n      field\n      code\n    }\n  }\n}"): (typeof documents)["mutation PauseBatchExport($id: ID!) {\n  pauseBatchExport(input: {id: $id}) {\n    __typename\n    ... on PauseBatchExportPayload {\n      batchExport {\n        id\n        name\n        paused\n        lastPausedAt\n      }\n    }\n    ... on NotFoundError {\n      message\n    }\n    ... on ValidationError {\n      message\n      field\n      code\n    }\n  }\n}\n\nmutation UnpauseBatchExport($id: ID!) {\n  unpauseBatchExport(input: {id: $id}) {\n    __typename\n    ... on UnpauseBatchExportPayload {\n      batchExport {\n        id\n        name\n        paused\n      }\n    }\n    ... on NotFoundError {\n      message\n    }\n    ... on ValidationError {\n      message\n      field\n      code\n    }\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;