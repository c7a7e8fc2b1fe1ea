// `npm run drift -- --upstream URL --key KEY`: reads one page of the organizations and of each one's
// batch exports, domains, invites, members, pipeline families and its projects' surveys, and prints
// one row per difference from what the schema reads (type, REST field, kind). Exits 1 with rows, 0
// without, 2 when the upstream cannot be read. The key is sent to the upstream only, never printed.
import { parseArgs } from 'node:util';
import { type Drift, driftOf, readFieldsOf, recordsOf } from '../src/schema/drift.ts';
import { schema } from '../src/schema/index.ts';

const PAGE = 100;
const ORGANIZATION_LISTS: [segment: string, type: string][] = [
  ['batch_exports', 'BatchExport'],
  ['domains', 'Domain'],
  ['invites', 'Invite'],
  ['members', 'Member'],
  ['pipeline_destinations', 'PipelineDestination'],
  ['pipeline_frontend_apps', 'PipelineFrontendApp'],
  ['pipeline_import_apps', 'PipelineImportApp'],
];

class UnreadableUpstream extends Error {}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { upstream: { type: 'string' }, key: { type: 'string' } } });
  if (!values.upstream || !values.key) {
    console.error('usage: npm run drift -- --upstream URL --key KEY');
    return 2;
  }
  const base = values.upstream.replace(/\/+$/, '');
  const key = values.key;
  const get = async (path: string): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(`${base}${path}?limit=${PAGE}`, { headers: { authorization: `Bearer ${key}` }, redirect: 'error' });
    } catch {
      throw new UnreadableUpstream(`GET ${path}: the upstream could not be reached`);
    }
    if (!response.ok) throw new UnreadableUpstream(`GET ${path}: HTTP ${response.status}`);
    try {
      return await response.json();
    } catch {
      throw new UnreadableUpstream(`GET ${path}: the answer is not JSON`);
    }
  };

  const read = readFieldsOf(schema);
  const findings = new Map<string, Drift>();
  const compare = (type: string, answer: unknown) => {
    for (const record of recordsOf(answer)) {
      for (const drift of driftOf(read, type, record)) findings.set(`${drift.type} ${drift.field} ${drift.kind}`, drift);
    }
  };
  try {
    const organizations = await get('/api/organizations/');
    compare('Organization', organizations);
    for (const org of recordsOf(organizations) as {
      id?: unknown;
      projects?: { id?: unknown }[];
      teams?: { id?: unknown; project_id?: unknown }[];
    }[]) {
      const orgPath = `/api/organizations/${encodeURIComponent(String(org.id))}`;
      for (const [segment, type] of ORGANIZATION_LISTS) compare(type, await get(`${orgPath}/${segment}/`));
      const projectIds = new Set(
        Array.isArray(org.projects) ? org.projects.map((p) => String(p.id)) : (org.teams ?? []).map((t) => String(t.project_id ?? t.id)),
      );
      for (const projectId of projectIds) compare('Survey', await get(`/api/projects/${encodeURIComponent(projectId)}/surveys/`));
    }
  } catch (error) {
    if (!(error instanceof UnreadableUpstream)) throw error;
    console.error(`drift: cannot read the upstream: ${error.message}`);
    return 2;
  }
  if (findings.size === 0) {
    console.log('No drift: every record read matches what the schema reads.');
    return 0;
  }
  console.log('type\tfield\tkind');
  for (const { type, field, kind } of findings.values()) console.log(`${type}\t${field}\t${kind}`);
  return 1;
}

process.exitCode = await main();
