// The operations both benchmarks send, and the global-id encoding the floor must reproduce.
import { DATASET_SIZES } from './dataset.ts';

export const DASHBOARD = `query Dashboard { organizations(first: 5) { nodes { id name
  batchExports(first: 10) { nodes { id name paused interval } }
  domains(first: 5) { nodes { id domain } }
  members(first: 10) { nodes { id user { email } } }
  pipelineDestinations(first: 10) { nodes { id name } } } } }`;

/** organizations -> projects (no call: they come from `teams`) -> surveys: one round trip per level that calls. */
export const THREE_LEVEL = `query ThreeLevels { organizations(first: 5) { nodes { id name
  projects { id name surveys(first: 5) { nodes { id name type } } } } } }`;

/** The chaos run's write: one POST upstream, and a re-read only when the answer does not carry the export. */
export const PAUSE_BATCH_EXPORT = `mutation Pause($id: ID!) { pauseBatchExport(input: { id: $id }) {
  __typename ... on PauseBatchExportPayload { batchExport { id paused } } ... on NotFoundError { message } } }`;

/** The polled dashboard's other write: unpause, answered like pause. */
export const UNPAUSE_BATCH_EXPORT = `mutation Unpause($id: ID!) { unpauseBatchExport(input: { id: $id }) {
  __typename ... on UnpauseBatchExportPayload { batchExport { id paused } } ... on NotFoundError { message } } }`;

/** 1 organizations page, then 4 lists per organization. */
export const DASHBOARD_CALLS = 1 + 4 * DATASET_SIZES.organizations;
/** 1 organizations page, then one surveys page per project. */
export const THREE_LEVEL_CALLS = 1 + DATASET_SIZES.organizations * DATASET_SIZES.projectsPerOrganization;

/**
 * The gateway's global id (src/schema/global-id.ts `globalId()`): base64 of `<Type>:<parts>` with
 * URI-encoded parts. Restated here so the floor loads no GraphQL code; run.ts checks both agree.
 */
export function globalId(typename: string, ...parts: (string | number)[]): string {
  return Buffer.from(`${typename}:${parts.map((part) => encodeURIComponent(String(part))).join(':')}`).toString('base64');
}

export const graphqlBody = (query: string) => JSON.stringify({ query });
