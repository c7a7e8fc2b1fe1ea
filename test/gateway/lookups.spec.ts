// Lookups by id follow the contract (Identifiers): a record with a REST retrieve is retrieved, one
// call per distinct id, all at once, however it is reached (`organization(databaseId:)`, aliases,
// `node`, `nodes`, `_entities`, all in one request); a 404 is null for that record alone and any
// other failure fails that record's field alone; invites and members are found by one scan of their
// organization's list. The estimate counts what the lookups cost.
import fc from 'fast-check';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway.ts';
import { estimateUpstreamCalls } from '../../src/limits/fan-out.ts';
import { USER_IDS } from '../../src/reference-api/demo-users.ts';
import { type RecordedRequest, type ReferenceApi, startReferenceApi } from '../../src/reference-api/index.ts';
import { globalId } from '../../src/schema/global-id.ts';
import { subgraphSchema } from '../../src/schema/subgraph.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { sendJson } from '../support/scripted-answers.ts';

const NODES = `query Nodes($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }`;

describe('against the reference API', () => {
  let h: Harness;
  let org: string;
  let projectId: string;
  const rest = { exports: [] as string[], run: '', domains: [] as string[], destination: 0, survey: '' };
  /** Global ids by what they name, and for the property test: the upstream read each one needs. */
  const ids = new Map<string, { id: string; read: string | null }>();

  beforeAll(async () => {
    h = await startHarness({ demoData: false });
    const { store } = h.api;
    const record = store.addOrganization({ name: 'Lookups Inc' }, { owner: USER_IDS.demo });
    org = record.id;
    store.addMembership(org, USER_IDS.alice, 1);
    store.addInvite(org, { target_email: 'new@lookups.example' });
    for (let i = 1; i <= 4; i++) rest.exports.push(store.addBatchExport(org, { name: `export ${i}` }).id);
    const [firstExport] = store.batchExportsOf(org);
    rest.run = store.addBatchExportRun(firstExport as never, { data_interval_end: '2026-01-05T10:00:00Z', status: 'Completed' }).id;
    for (const domain of ['a.example', 'b.example']) rest.domains.push(store.addDomain(org, { domain }).id);
    rest.destination = store.addPipelineItem(org, 'pipeline_destinations', { plugin_type: 'custom', name: 'hook' }).id;
    const team = store.teamsOf(org)[0] as { id: number; project_id: number };
    projectId = String(team.project_id);
    rest.survey = store.addSurvey(team.id, { name: 'how are we doing' }).id;

    const { data, errors } = await h.run<any, { org: string }>(
      `query($org: UUID!) { organization(databaseId: $org) { id projects { id }
        batchExports(first: 100) { nodes { id latestRuns { id } } } domains { nodes { id } }
        members { nodes { id } } invites { nodes { id } } pipelineDestinations { nodes { id } }
        projects { surveys { nodes { id } } } } }`,
      { org },
    );
    expect(errors).toBeUndefined();
    const o = data.organization;
    const exportRead = (id: string) => `GET /api/organizations/${org}/batch_exports/${id}/`;
    ids.set('organization', { id: o.id, read: `GET /api/organizations/${org}/` });
    for (const [i, e] of (o.batchExports.nodes as { id: string }[]).entries()) {
      ids.set(`export ${i}`, { id: e.id, read: exportRead(rest.exports[i] as string) });
    }
    ids.set('run', { id: o.batchExports.nodes[0].latestRuns[0].id, read: exportRead(rest.exports[0] as string) });
    for (const [i, d] of (o.domains.nodes as { id: string }[]).entries()) {
      ids.set(`domain ${i}`, { id: d.id, read: `GET /api/organizations/${org}/domains/${rest.domains[i]}/` });
    }
    for (const [i, m] of (o.members.nodes as { id: string }[]).entries()) {
      ids.set(`member ${i}`, { id: m.id, read: `GET /api/organizations/${org}/members/?limit=100&offset=0` });
    }
    ids.set('invite', { id: o.invites.nodes[0].id, read: `GET /api/organizations/${org}/invites/?limit=100&offset=0` });
    ids.set('destination', {
      id: o.pipelineDestinations.nodes[0].id,
      read: `GET /api/organizations/${org}/pipeline_destinations/${rest.destination}/`,
    });
    ids.set('survey', { id: o.projects[0].surveys.nodes[0].id, read: `GET /api/projects/${projectId}/surveys/${rest.survey}/` });
    ids.set('project', { id: o.projects[0].id, read: null });
  });
  afterAll(() => h.close());

  const idOf = (name: string) => ids.get(name)?.id as string;

  it('aliases of batchExport(databaseId:) retrieve each distinct export once, and list nothing', async () => {
    const [a, b, c] = rest.exports;
    const { data, errors, calls, routes } = await h.runCounting(
      `query($org: UUID!, $a: UUID!, $b: UUID!, $c: UUID!) { organization(databaseId: $org) {
        a: batchExport(databaseId: $a) { name } b: batchExport(databaseId: $b) { name }
        c: batchExport(databaseId: $c) { name } again: batchExport(databaseId: $a) { databaseId } } }`,
      { org, a, b, c },
    );
    expect(errors).toBeUndefined();
    expect(data).toEqual({
      organization: { a: { name: 'export 1' }, b: { name: 'export 2' }, c: { name: 'export 3' }, again: { databaseId: a } },
    });
    expect(routes.sort()).toEqual(
      [`GET /api/organizations/${org}/`, ...[a, b, c].map((id) => `GET /api/organizations/${org}/batch_exports/${id}/`)].sort(),
    );
    for (const call of calls) expect(call.query).toEqual({});
  });

  it('nodes(ids:) over records of every type: one retrieve per distinct record, one scan per list without retrieve', async () => {
    const names = [
      'export 0',
      'export 1',
      'run',
      'export 2',
      'domain 0',
      'domain 1',
      'destination',
      'survey',
      'organization',
      'member 0',
      'member 1',
      'invite',
      'project',
      'export 1',
    ];
    const { data, errors, routes } = await h.runCounting<any, { ids: string[] }>(NODES, { ids: names.map(idOf) });
    expect(errors).toBeUndefined();
    expect(data.nodes.map((n: { id: string }) => n.id)).toEqual(names.map(idOf));
    expect(routes.sort()).toEqual(
      [
        `GET /api/organizations/${org}/`,
        ...rest.exports.slice(0, 3).map((id) => `GET /api/organizations/${org}/batch_exports/${id}/`), // the run shares export 0's
        ...rest.domains.map((id) => `GET /api/organizations/${org}/domains/${id}/`),
        `GET /api/organizations/${org}/pipeline_destinations/${rest.destination}/`,
        `GET /api/projects/${projectId}/surveys/${rest.survey}/`,
        `GET /api/organizations/${org}/members/?limit=100&offset=0`, // both members, one page
        `GET /api/organizations/${org}/invites/?limit=100&offset=0`,
      ].sort(),
    );
  });

  it('node, nodes and aliases of one request share their calls', async () => {
    const { errors, routes } = await h.runCounting<any, { a: string; b: string }>(
      `query($a: ID!, $b: ID!) { x: node(id: $a) { id } y: node(id: $b) { id } nodes(ids: [$a, $b, $a]) { id } }`,
      { a: idOf('export 0'), b: idOf('run') },
    );
    expect(errors).toBeUndefined();
    expect(routes).toEqual([`GET /api/organizations/${org}/batch_exports/${rest.exports[0]}/`]);
  });

  it('organization(databaseId:), node and _entities naming the same records: one retrieve per distinct record', async () => {
    const exportId = rest.exports[0] as string;
    const { data, errors, routes } = await h.runCounting<any, unknown>(
      `query($org: UUID!, $orgId: ID!, $export: UUID!, $exportId: ID!, $representations: [_Any!]!) {
        organization(databaseId: $org) { id name batchExport(databaseId: $export) { id name } }
        o: node(id: $orgId) { ... on Organization { name } } e: node(id: $exportId) { ... on BatchExport { name } }
        _entities(representations: $representations) { __typename ... on Organization { name } ... on BatchExport { name } } }`,
      {
        org,
        orgId: idOf('organization'),
        export: exportId,
        exportId: idOf('export 0'),
        representations: [
          { __typename: 'Organization', id: idOf('organization') },
          { __typename: 'Organization', databaseId: org },
          { __typename: 'BatchExport', id: idOf('export 0') },
        ],
      },
    );
    expect(errors).toBeUndefined();
    expect(data).toEqual({
      organization: { id: idOf('organization'), name: 'Lookups Inc', batchExport: { id: idOf('export 0'), name: 'export 1' } },
      o: { name: 'Lookups Inc' },
      e: { name: 'export 1' },
      _entities: [
        { __typename: 'Organization', name: 'Lookups Inc' },
        { __typename: 'Organization', name: 'Lookups Inc' },
        { __typename: 'BatchExport', name: 'export 1' },
      ],
    });
    expect(routes.sort()).toEqual([`GET /api/organizations/${org}/`, `GET /api/organizations/${org}/batch_exports/${exportId}/`].sort());
  });

  it('takes a UUID in either case, in a global id or a representation, as one record, sent in lower case', async () => {
    const exportId = rest.exports[0] as string;
    const orgUpper = Buffer.from(`Organization:${org.toUpperCase()}`).toString('base64');
    const exportUpper = Buffer.from(`BatchExport:${org.toUpperCase()}:${exportId.toUpperCase()}`).toString('base64');
    const { data, errors, routes } = await h.runCounting<any, unknown>(
      `query($orgId: ID!, $exportId: ID!, $representations: [_Any!]!) {
        o: node(id: $orgId) { ... on Organization { name } } e: node(id: $exportId) { ... on BatchExport { name } }
        _entities(representations: $representations) { ... on Organization { name } } }`,
      {
        orgId: orgUpper,
        exportId: exportUpper,
        representations: [
          { __typename: 'Organization', databaseId: org.toUpperCase() },
          { __typename: 'Organization', id: idOf('organization') },
        ],
      },
    );
    expect(errors).toBeUndefined();
    expect(data).toEqual({
      o: { name: 'Lookups Inc' },
      e: { name: 'export 1' },
      _entities: [{ name: 'Lookups Inc' }, { name: 'Lookups Inc' }],
    });
    expect(routes.sort()).toEqual([`GET /api/organizations/${org}/`, `GET /api/organizations/${org}/batch_exports/${exportId}/`].sort());
  });

  it('makes one call per distinct read the ids need, and the estimate counts each retrieve once and each scan at its bound', async () => {
    const names = [...ids.keys()];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 14 }), async (picked) => {
        const reads = new Set(picked.map((name) => ids.get(name)?.read).filter((read): read is string => read !== null));
        const scans = [...reads].filter((read) => read.includes('?')).length;
        const variables = { ids: picked.map(idOf) };
        const { errors, routes } = await h.runCounting<any, { ids: string[] }>(NODES, variables);
        expect(errors).toBeUndefined();
        expect(routes.sort()).toEqual([...reads].sort());
        const estimate = estimateUpstreamCalls(subgraphSchema, parse(NODES), undefined, variables, { maxLookupScanPages: 10 });
        expect(estimate).toBe(reads.size - scans + 10 * scans);
      }),
      { numRuns: 30 },
    );
  });
});

describe('against scripted upstream answers', () => {
  const ORG = '0b0e7a52-3a55-4d5e-9a43-6f6d2a1f0001';
  const exportId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
  const exportRecord = (id: string) => ({ id, name: `export ${Number(id.slice(-12))}`, paused: false, interval: 'hour' });
  const exportPath = (id: string) => `/api/organizations/${ORG}/batch_exports/${id}/`;
  const ALIASES = `query($org: UUID!, $a: UUID!, $b: UUID!, $c: UUID!, $d: UUID!) { organization(databaseId: $org) {
    a: batchExport(databaseId: $a) { name } b: batchExport(databaseId: $b) { name }
    c: batchExport(databaseId: $c) { name } d: batchExport(databaseId: $d) { name } } }`;

  let upstream: ReferenceApi;
  let gateway: Gateway;
  beforeAll(async () => {
    upstream = await startReferenceApi();
    // No retries, and a breaker that never opens: each test's failures are exactly the ones it asks for.
    gateway = createGateway({ upstreamUrl: upstream.url, upstreamGetRetries: 0, circuitBreaker: { volumeThreshold: 1_000_000 } });
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  async function run(query: string, variables: Record<string, unknown>) {
    upstream.requests.length = 0;
    const response = await gateway.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer phx_lookups' },
      body: JSON.stringify({ query, variables }),
    });
    return (await response.json()) as { data?: any; errors?: any[] };
  }

  /**
   * Answers the organization at once and each batch export retrieve with `status(id)`, holding the
   * retrieves until `together` of them are in flight (or 2 s passed): sequential calls would never
   * get there. Returns the most retrieves seen in flight at once.
   */
  function serveExports(together: number, status: (id: string) => number = () => 200) {
    const seen = { inFlight: 0, most: 0 };
    const held: (() => void)[] = [];
    upstream.answerWith(async (req: RecordedRequest, res) => {
      if (req.path === `/api/organizations/${ORG}/`) return sendJson(res, 200, { id: ORG, name: 'Acme', teams: [] });
      const id = req.path.split('/')[5] as string;
      seen.inFlight += 1;
      seen.most = Math.max(seen.most, seen.inFlight);
      await new Promise<void>((resolve) => {
        held.push(resolve);
        if (held.length >= together) for (const release of held.splice(0)) release();
        else setTimeout(resolve, 2000);
      });
      seen.inFlight -= 1;
      const code = status(id);
      sendJson(res, code, code === 200 ? exportRecord(id) : { type: 'server_error', code: 'error', detail: 'Failed.', attr: null });
    });
    return seen;
  }

  it('sends the retrieves of aliases together, one round trip after the organization', async () => {
    const [a, b, c, d] = [1, 2, 3, 4].map(exportId) as [string, string, string, string];
    const seen = serveExports(4);
    const started = performance.now();
    const { data, errors } = await run(ALIASES, { org: ORG, a, b, c, d });
    expect(errors).toBeUndefined();
    expect(data.organization).toEqual({
      a: { name: 'export 1' },
      b: { name: 'export 2' },
      c: { name: 'export 3' },
      d: { name: 'export 4' },
    });
    expect(seen.most).toBe(4);
    expect(performance.now() - started).toBeLessThan(2000);
    const [first, ...retrieves] = upstream.requests.map((r) => [r.method, r.path, r.query]);
    expect(first).toEqual(['GET', `/api/organizations/${ORG}/`, {}]);
    expect(retrieves.sort()).toEqual([a, b, c, d].map((id) => ['GET', exportPath(id), {}]).sort());
  });

  const ENTITIES = `query($representations: [_Any!]!) { _entities(representations: $representations) { ... on BatchExport { id } } }`;
  /** The same export lookups by `nodes(ids:)` and by `_entities`. */
  const byGlobalIds = {
    nodes: (exports: string[]) => [NODES, { ids: exports.map((id) => globalId('BatchExport', ORG, id)) }, 'nodes'] as const,
    _entities: (exports: string[]) =>
      [
        ENTITIES,
        { representations: exports.map((id) => ({ __typename: 'BatchExport', id: globalId('BatchExport', ORG, id) })) },
        '_entities',
      ] as const,
  };

  it.each(Object.keys(byGlobalIds) as (keyof typeof byGlobalIds)[])(
    'sends the retrieves of %s together, each distinct id once',
    async (field) => {
      const exports = [1, 2, 3, 4, 5, 6].map(exportId);
      const seen = serveExports(6);
      const started = performance.now();
      const [query, variables] = byGlobalIds[field]([...exports, exports[0] as string]);
      const { data, errors } = await run(query, variables);
      expect(errors).toBeUndefined();
      expect(data[field].map((n: { id: string }) => n.id)).toEqual(
        [...exports, exports[0] as string].map((id) => globalId('BatchExport', ORG, id)),
      );
      expect(seen.most).toBe(6);
      expect(performance.now() - started).toBeLessThan(2000);
      expect(upstream.requests.map((r) => [r.method, r.path, r.query]).sort()).toEqual(
        exports.map((id) => ['GET', exportPath(id), {}]).sort(),
      );
    },
  );

  const STATUSES = { 200: null, 404: null, 403: 'FORBIDDEN', 429: 'RATE_LIMITED', 500: 'UPSTREAM_ERROR', 502: 'UPSTREAM_ERROR' } as const;

  it('gives each record its own outcome: a 404 is its null, any other failure its own error, its siblings resolve', async () => {
    const statuses = Object.keys(STATUSES).map(Number) as (keyof typeof STATUSES)[];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...statuses), { minLength: 4, maxLength: 4 }), async (picked) => {
        const exports = picked.map((_, i) => exportId(i + 1));
        const statusOf = new Map(exports.map((id, i) => [id, picked[i] as number]));
        serveExports(4, (id) => statusOf.get(id) as number);
        const records = exports.map((id) => (statusOf.get(id) === 200 ? exportRecord(id) : null));
        const errorsAt = (pathOf: (i: number) => (string | number)[]) =>
          picked.flatMap((status, i) => (STATUSES[status] ? [[pathOf(i), STATUSES[status], status]] : []));
        const sorted = (errors: any[] | undefined) =>
          (errors ?? [])
            .map((e) => [e.path, e.extensions.code, e.extensions.upstreamStatus])
            .sort((x, y) => String(x[0]).localeCompare(String(y[0])));

        // By aliases: each alias is its own field.
        const [a, b, c, d] = exports;
        const aliased = await run(ALIASES, { org: ORG, a, b, c, d });
        expect(aliased.data.organization).toEqual(
          Object.fromEntries(['a', 'b', 'c', 'd'].map((alias, i) => [alias, records[i] && { name: records[i].name }])),
        );
        expect(sorted(aliased.errors)).toEqual(errorsAt((i) => ['organization', 'abcd'[i] as string]));

        // By nodes(ids:) and _entities: each entry is its own field.
        for (const [query, variables, field] of [byGlobalIds.nodes(exports), byGlobalIds._entities(exports)]) {
          const listed = await run(query, variables);
          expect(listed.data[field].map((n: { id: string } | null) => n?.id ?? null)).toEqual(
            records.map((r) => r && globalId('BatchExport', ORG, r.id)),
          );
          expect(sorted(listed.errors)).toEqual(errorsAt((i) => [field, i]));
        }
      }),
      { numRuns: 25 },
    );
  });
});
