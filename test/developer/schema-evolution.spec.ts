// Schema evolution (docs/schema-evolution.md): `npm run schema:diff` compares the schemas with the
// last release in released/ and fails on a breaking change until CHANGELOG.md names it under an
// incompatible version, or while a shipped operation no longer validates; dangerous changes are
// listed, safe ones pass unlisted. Each case is a small project in a temp directory, released with
// `npm run schema:release`'s own function, then changed.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import SchemaBuilder from '@pothos/core';
import fc from 'fast-check';
import { getIntrospectionQuery, lexicographicSortSchema, printSchema } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, describe, expect, it } from 'vitest';
import { acknowledgementOf } from '../../scripts/schema-evolution/changelog.ts';
import { checkSchemaEvolution, formatReport, releaseSchema } from '../../scripts/schema-evolution/index.ts';
import { nextIncompatibleVersion } from '../../scripts/schema-evolution/versions.ts';
import { queryLimitPlugins } from '../../src/limits/query-limits.ts';
import { DEFAULTS } from '../support/defaults.ts';

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

const SCHEMA = `type Query {
  organization(databaseId: ID!): Organization
  organizations(first: Int): [Organization!]!
  result: Result
}

type Organization {
  id: ID!
  name: String
  slug: String
}

type Done {
  message: String
}

type Failed {
  message: String
}

union Result = Done | Failed
`;

const subgraphOf = (schema: string) =>
  `extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])\n\n${schema.replace('type Organization {', 'type Organization @key(fields: "id") {')}`;

const OPERATIONS = {
  'organization.graphql': 'query Organization($id: ID!) { organization(databaseId: $id) { id name } }',
  'organizations.graphql': 'query Organizations { organizations { id } }',
};
// The same fields selected on two union members: valid only while both have the same type.
const MANIFEST = { 'sha256:0123456789abcdef': 'query Result { result { ... on Done { message } ... on Failed { message } } }' };

const changelog = (newer = '', released = '0.1.0') =>
  `# Changelog\n\n## [Unreleased]\n\n${newer}\n## [${released}] - 2026-11-23\n\n- First release.\n`;

/** A released project: its schemas, operations, CHANGELOG.md and package.json, with released/ written by the release function. */
async function releasedProject({
  version = '0.1.0',
  schema = SCHEMA,
  subgraph = subgraphOf(schema),
  operations = OPERATIONS as Record<string, string>,
  manifest = MANIFEST,
} = {}) {
  const root = mkdtempSync(join(tmpdir(), 'schema-evolution-'));
  directories.push(root);
  const write = (file: string, text: string) => {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), text);
  };
  write('package.json', JSON.stringify({ name: 'fixture', version }));
  write('CHANGELOG.md', changelog('', version));
  for (const [name, text] of Object.entries(operations)) write(`examples/operations/${name}`, text);
  write('examples/generated/persisted-documents.json', JSON.stringify(manifest));
  const setSchema = (sdl: string, subgraph = subgraphOf(sdl)) => {
    write('schema.graphql', sdl);
    write('subgraph.graphql', subgraph);
  };
  setSchema(schema, subgraph);
  expect(await releaseSchema(root)).toBe(version);
  return {
    root,
    setSchema,
    setChangelog: (newer: string) => write('CHANGELOG.md', changelog(newer, version)),
    setVersion: (next: string) => write('package.json', JSON.stringify({ name: 'fixture', version: next })),
    check: () => checkSchemaEvolution(root),
  };
}

describe('npm run schema:diff', () => {
  it('passes a release unchanged, and an added field without listing it', async () => {
    const project = await releasedProject();
    expect(await project.check()).toMatchObject({ ok: true, breaking: [], dangerous: [], invalidOperations: [], operationCount: 3 });
    project.setSchema(SCHEMA.replace('  slug: String\n', '  slug: String\n  createdAt: String\n'));
    const report = await project.check();
    expect(report).toMatchObject({ ok: true, breaking: [], dangerous: [], invalidOperations: [], deprecatedUses: [] });
    expect(formatReport(report)).toBe('No breaking change since release 0.1.0; 3 shipped operations validate.');
  });

  it('fails on a removed field until CHANGELOG.md names it in backticks under an incompatible version', async () => {
    const project = await releasedProject();
    project.setSchema(SCHEMA.replace('  slug: String\n', ''));
    const removal = {
      level: 'breaking',
      coordinate: 'Organization.slug',
      file: 'schema.graphql',
      message: "Field 'slug' was removed from object type 'Organization'",
    };
    const fix = 'name `Organization.slug` under `## [0.2.0]` (or a later incompatible version) in CHANGELOG.md';

    const cases: [string, boolean, string | undefined][] = [
      ['', false, `not acknowledged: ${fix}`],
      ['- Removed Organization.slug.\n\n## [0.2.0]\n\n- Removed the slug.\n', false, `not acknowledged: ${fix}`],
      ['- Removed `Organization.slug`.\n', false, `named under Unreleased, which has no version: ${fix}`],
      ['## [0.1.1]\n\n- Removed `Organization.slug`.\n', false, `named under 0.1.1, a compatible bump from 0.1.0: ${fix}`],
      ['## [0.2.0] - Unreleased\n\n- Removed `Organization.slug`.\n', true, undefined],
      ['## [1.0.0]\n\n### Removed\n\n- `Organization.slug` (deprecated since 0.1.0).\n', true, undefined],
    ];
    for (const [newer, ok, missing] of cases) {
      project.setChangelog(newer);
      const report = await project.check();
      expect(report.ok, newer).toBe(ok);
      expect(report.breaking, newer).toEqual([
        { ...removal, ...(missing ? { missing } : { acknowledgedIn: expect.stringMatching(/^(0\.2|1\.0)\.0$/) }) },
      ]);
    }
    expect(formatReport(await project.check())).toContain(
      "`Organization.slug` (schema.graphql): Field 'slug' was removed from object type 'Organization'\n    acknowledged in 1.0.0",
    );
  });

  it('from 1.0.0 on, only a major version acknowledges a breaking change', async () => {
    const project = await releasedProject({ version: '1.4.2' });
    project.setSchema(SCHEMA.replace('  slug: String\n', ''));
    project.setChangelog('## [1.5.0]\n\n- Removed `Organization.slug`.\n');
    expect((await project.check()).breaking[0]?.missing).toBe(
      'named under 1.5.0, a compatible bump from 1.4.2: name `Organization.slug` under `## [2.0.0]` (or a later incompatible version) in CHANGELOG.md',
    );
    project.setChangelog('## [2.0.0]\n\n- Removed `Organization.slug`.\n');
    expect(await project.check()).toMatchObject({ ok: true, breaking: [{ coordinate: 'Organization.slug', acknowledgedIn: '2.0.0' }] });
  });

  it('acknowledges under the next incompatible version or later, never under a compatible one, from any release', () => {
    const version = fc.tuple(fc.nat(30), fc.nat(30), fc.nat(30)).map((parts) => parts.join('.'));
    const section = (at: string) => [{ version: at, body: '- Removed `Query.old`.\n' }];
    fc.assert(
      fc.property(version, fc.nat(3), (released, step) => {
        const [major, minor, patch] = released.split('.').map(Number) as [number, number, number];
        // Newer, and still inside `^released`: the patch (or, from 1.0.0, the minor) moves.
        const compatible = major > 0 ? `${major}.${minor + step}.${patch + 1}` : minor > 0 ? `0.${minor}.${patch + 1 + step}` : undefined;
        if (compatible) expect(acknowledgementOf('Query.old', section(compatible), released)).toHaveProperty('missing');
        const incompatible = nextIncompatibleVersion(released);
        expect(acknowledgementOf('Query.old', section(incompatible), released)).toEqual({ version: incompatible });
        const later = major > 0 ? `${major + 1 + step}.0.0` : minor > 0 ? `${step}.${minor + 1}.0` : `0.${step}.${patch + 1}`;
        expect(acknowledgementOf('Query.old', section(later), released)).toEqual({ version: later });
      }),
    );
  });

  it('lists dangerous changes and passes', async () => {
    const project = await releasedProject();
    project.setSchema(
      `${SCHEMA.replace('organizations(first: Int)', 'organizations(first: Int, after: String)').replace('Done | Failed', 'Done | Failed | Pending')}\ntype Pending {\n  since: String\n}\n`,
    );
    const report = await project.check();
    expect(report).toMatchObject({ ok: true, breaking: [], invalidOperations: [] });
    expect(report.dangerous).toEqual([
      {
        level: 'dangerous',
        coordinate: 'Query.organizations.after',
        file: 'schema.graphql',
        message: "Argument 'after: String' added to field 'Query.organizations'",
      },
      { level: 'dangerous', coordinate: 'Result', file: 'schema.graphql', message: "Member 'Pending' was added to Union type 'Result'" },
    ]);
    expect(formatReport(report)).toMatch(
      /^Dangerous changes .*:\n {2}`Query\.organizations\.after` \(schema\.graphql\): Argument 'after: String' added/,
    );
  });

  it('fails when a shipped operation no longer validates, though the inspector calls the change safe', async () => {
    const project = await releasedProject();
    // Non-null on one union member only: the manifest's `message` on both members now conflicts.
    project.setSchema(SCHEMA.replace('type Done {\n  message: String\n}', 'type Done {\n  message: String!\n}'));
    const report = await project.check();
    expect(report).toMatchObject({ ok: false, breaking: [], dangerous: [] });
    expect(report.invalidOperations).toEqual([
      {
        source: 'examples/generated/persisted-documents.json Result (0123456789ab…)',
        message: expect.stringContaining('Fields "message" conflict because they return conflicting types "String!" and "String".'),
      },
    ]);
    expect(formatReport(report)).toContain(
      'Shipped operations that do not validate against schema.graphql:\n  examples/generated/persisted-documents.json Result',
    );
  });

  it('fails while a shipped operation relies on what a breaking change took away, even once acknowledged', async () => {
    const project = await releasedProject();
    project.setSchema(SCHEMA.replace('organizations(first: Int)', 'organizations(first: Int!)'));
    project.setChangelog('## [0.2.0]\n\n- `Query.organizations.first` is required.\n');
    const report = await project.check();
    expect(report.breaking).toMatchObject([{ coordinate: 'Query.organizations.first', acknowledgedIn: '0.2.0' }]);
    expect(report.invalidOperations).toEqual([
      {
        source: 'examples/operations/organizations.graphql',
        message: expect.stringContaining('argument "first" of type "Int!" is required'),
      },
    ]);
    expect(report.ok).toBe(false);
  });

  it('in subgraph.graphql, a removed entity key (or one whose fields changed) is breaking and a new one safe; public changes are reported once', async () => {
    const project = await releasedProject();
    project.setSchema(SCHEMA, subgraphOf(SCHEMA).replace(' @key(fields: "id")', ''));
    expect((await project.check()).breaking).toEqual([
      expect.objectContaining({
        coordinate: 'Organization.@key',
        file: 'subgraph.graphql',
        message: "Directive 'key' was removed from object 'Organization'",
      }),
    ]);
    project.setSchema(SCHEMA, subgraphOf(SCHEMA).replace(' @key(fields: "id")', ' @key(fields: "name")'));
    expect((await project.check()).breaking).toEqual([
      expect.objectContaining({
        coordinate: 'Organization.@key.fields',
        file: 'subgraph.graphql',
        message: "Argument 'fields' was removed from '@key'",
      }),
    ]);
    project.setSchema(SCHEMA, subgraphOf(SCHEMA).replace(' @key(fields: "id")', ' @key(fields: "id") @key(fields: "name")'));
    expect(await project.check()).toMatchObject({ ok: true, breaking: [], dangerous: [] });
    project.setSchema(SCHEMA.replace('  slug: String\n', ''));
    expect((await project.check()).breaking.map(({ coordinate, file }) => `${coordinate} ${file}`)).toEqual([
      'Organization.slug schema.graphql',
    ]);
  });

  it('in subgraph.graphql, cost directives added, changed or removed are safe; a newer federation @link is dangerous', async () => {
    const project = await releasedProject();
    const withCost = (weight: number) =>
      subgraphOf(SCHEMA)
        .replace('v2.6", import: ["@key"]', 'v2.9", import: ["@key", "@cost", "@listSize"]')
        .replace('type Organization @key(fields: "id")', 'type Organization @key(fields: "id") @cost(weight: 0)')
        .replace(
          '): [Organization!]!',
          `): [Organization!]! @cost(weight: ${weight}) @listSize(assumedSize: 20, slicingArguments: ["first"], requireOneSlicingArgument: false)`,
        );
    project.setSchema(SCHEMA, withCost(1));
    const added = await project.check();
    expect(added).toMatchObject({ ok: true, breaking: [] });
    expect(added.dangerous.map(({ coordinate }) => coordinate)).toEqual(['.@link.url', '.@link.import']);
    const priced = await releasedProject({ subgraph: withCost(1) });
    priced.setSchema(SCHEMA, withCost(3));
    expect(await priced.check()).toMatchObject({ ok: true, breaking: [], dangerous: [] });
    priced.setSchema(SCHEMA, withCost(3).replace(/ @cost\(weight: \d\)| @listSize\([^)]*\)/g, ''));
    expect(await priced.check()).toMatchObject({ ok: true, breaking: [], dangerous: [] });
  });

  it('refuses to compare with a release package.json has moved past', async () => {
    const project = await releasedProject();
    project.setVersion('0.2.0');
    await expect(project.check()).rejects.toThrow(
      "package.json's version is 0.2.0, released/schema.graphql's 0.1.0: finish the release with `npm run schema:release`.",
    );
  });
});

describe('deprecation', () => {
  /** What Pothos prints for a field and an argument with `deprecationReason`, as src/schema would declare them. */
  function pothosSchema(deprecated: boolean) {
    const builder = new SchemaBuilder<{ Scalars: { ID: { Input: string; Output: string } } }>({});
    const reason = (text: string) => (deprecated ? text : undefined);
    const Organization = builder.objectRef<{ name: string; slug: string }>('Organization').implement({
      description: 'An organization.',
      fields: (t) => ({
        name: t.exposeString('name', { description: 'Its name.' }),
        slug: t.exposeString('slug', {
          description: 'Its URL name.',
          deprecationReason: reason('Use `name`. Removed in 0.3.0, not before 2027-03-01.'),
        }),
      }),
    });
    builder.queryType({
      fields: (t) => ({
        organization: t.field({
          type: Organization,
          description: 'One organization.',
          args: {
            id: t.arg.id({ required: true, description: 'Its id.' }),
            legacyId: t.arg.string({ description: 'Its old id.', deprecationReason: reason('Use `id`.') }),
          },
          resolve: () => ({ name: 'Hedgehog', slug: 'hedgehog' }),
        }),
      }),
    });
    return builder.toSchema();
  }
  const print = (deprecated: boolean) => printSchema(lexicographicSortSchema(pothosSchema(deprecated)));
  const POTHOS_OPERATIONS = {
    'organization.graphql': 'query Organization($id: ID!) { organization(id: $id, legacyId: "o-1") { name slug } }',
  };
  const POTHOS_MANIFEST = { 'sha256:0123456789abcdef': 'query Name($id: ID!) { organization(id: $id) { name } }' };

  it('is printed as @deprecated, breaks nothing, and lists the shipped operations that still use what it marks', async () => {
    expect(print(true)).toContain('slug: String @deprecated(reason: "Use `name`. Removed in 0.3.0, not before 2027-03-01.")');
    expect(print(true)).toContain('legacyId: String @deprecated(reason: "Use `id`.")');
    const project = await releasedProject({ schema: print(false), operations: POTHOS_OPERATIONS, manifest: POTHOS_MANIFEST });
    expect(await project.check()).toMatchObject({ ok: true, deprecatedUses: [] });

    project.setSchema(print(true));
    const report = await project.check();
    expect(report).toMatchObject({ ok: true, breaking: [], dangerous: [], invalidOperations: [] });
    expect(report.deprecatedUses).toEqual([
      {
        source: 'examples/operations/organization.graphql',
        message: 'Field "Query.organization" argument "legacyId" is deprecated. Use `id`. (line 1, column 54)',
      },
      {
        source: 'examples/operations/organization.graphql',
        message: 'The field Organization.slug is deprecated. Use `name`. Removed in 0.3.0, not before 2027-03-01. (line 1, column 78)',
      },
    ]);
    expect(formatReport(report)).toContain(
      'Shipped operations that use something deprecated:\n  examples/operations/organization.graphql: Field "Query.organization" argument "legacyId"',
    );
  });

  it('does not make removal safe: removing a deprecated field is still breaking', async () => {
    const project = await releasedProject({
      version: '0.2.0',
      schema: print(true),
      operations: { 'name.graphql': POTHOS_MANIFEST['sha256:0123456789abcdef'] },
      manifest: POTHOS_MANIFEST,
    });
    project.setSchema(print(true).replace(/ {2}"""Its URL name\."""\n {2}slug: String @deprecated\(reason: ".*"\)\n/, ''));
    const report = await project.check();
    expect(report.breaking).toMatchObject([
      {
        coordinate: 'Organization.slug',
        message: "Field 'slug' (deprecated) was removed from object type 'Organization'",
        missing: expect.any(String),
      },
    ]);
    expect(report.ok).toBe(false);
    project.setChangelog('## [0.3.0]\n\n### Removed\n\n- `Organization.slug`, deprecated in 0.2.0: use `Organization.name`.\n');
    expect(await project.check()).toMatchObject({ ok: true, breaking: [{ coordinate: 'Organization.slug', acknowledgedIn: '0.3.0' }] });
  });

  it("is shown by GraphiQL: its introspection query passes the gateway's query limits and answers deprecated fields and arguments with their reasons", async () => {
    const yoga = createYoga({ schema: pothosSchema(true), plugins: queryLimitPlugins(DEFAULTS.queryLimits), logging: false });
    // The options Yoga's GraphiQL asks with (render-graphiql sets schemaDescription and inputValueDeprecation).
    const query = getIntrospectionQuery({
      schemaDescription: true,
      inputValueDeprecation: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
    });
    expect(query).toContain('fields(includeDeprecated: true)');
    const response = await yoga.fetch('http://yoga.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    const { data, errors } = (await response.json()) as { data: any; errors?: unknown };
    expect(errors).toBeUndefined();
    const type = (name: string) => data.__schema.types.find((candidate: { name: string }) => candidate.name === name);
    expect(type('Organization').fields).toContainEqual(
      expect.objectContaining({
        name: 'slug',
        isDeprecated: true,
        deprecationReason: 'Use `name`. Removed in 0.3.0, not before 2027-03-01.',
      }),
    );
    expect(type('Query').fields[0].args).toContainEqual(
      expect.objectContaining({ name: 'legacyId', isDeprecated: true, deprecationReason: 'Use `id`.' }),
    );
  });
});

describe('npm run schema:release', () => {
  it('needs a newer version in package.json with a dated CHANGELOG section and every breaking change acknowledged up to it; then the check starts from it', async () => {
    const project = await releasedProject();
    project.setSchema(SCHEMA.replace('  slug: String\n', ''));
    project.setChangelog('## [0.2.0] - Unreleased\n\n- Removed `Organization.slug`.\n');
    await expect(releaseSchema(project.root)).rejects.toThrow(
      "package.json's version 0.1.0 is not newer than the released 0.1.0: bump it first.",
    );
    project.setVersion('0.2.0');
    await expect(releaseSchema(project.root)).rejects.toThrow(
      "CHANGELOG.md needs a dated `## [0.2.0] - YYYY-MM-DD` section for package.json's version 0.2.0.",
    );
    project.setVersion('0.1.1');
    project.setChangelog('## [0.2.0] - 2026-12-01\n\n- Removed `Organization.slug`.\n\n## [0.1.1] - 2026-11-30\n\n- Nothing breaking.\n');
    await expect(releaseSchema(project.root)).rejects.toThrow('named under 0.2.0, which is not part of 0.1.1');
    expect(readFileSync(join(project.root, 'released/schema.graphql'), 'utf8')).toContain('# release 0.1.0\n');

    project.setVersion('0.2.0');
    expect(await releaseSchema(project.root)).toBe('0.2.0');
    const released = readFileSync(join(project.root, 'released/schema.graphql'), 'utf8');
    expect(released).toBe(
      `# release 0.2.0\n# Written by \`npm run schema:release\`; \`npm run schema:diff\` compares schema.graphql with it.\n${SCHEMA.replace('  slug: String\n', '')}`,
    );
    expect(readFileSync(join(project.root, 'released/subgraph.graphql'), 'utf8')).toContain(`# release 0.2.0\n`);
    expect(await project.check()).toMatchObject({ ok: true, releasedVersion: '0.2.0', breaking: [] });
  });
});

describe('the command line', () => {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const script = fileURLToPath(new URL('../../scripts/schema-diff.ts', import.meta.url));
  const run = (cwd: string) =>
    promisify(execFile)(process.execPath, ['--import', tsx, script], { cwd }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

  it('prints one line and exits 0 when compatible; prints the change and its fix and exits 1 when not', async () => {
    const project = await releasedProject();
    expect(await run(project.root)).toMatchObject({
      code: 0,
      stdout: 'No breaking change since release 0.1.0; 3 shipped operations validate.\n',
      stderr: '',
    });
    project.setSchema(SCHEMA.replace('  slug: String\n', ''));
    const failure = await run(project.root);
    expect(failure).toMatchObject({ code: 1, stdout: '' });
    expect(failure.stderr).toBe(
      [
        'Breaking changes since 0.1.0:',
        "  `Organization.slug` (schema.graphql): Field 'slug' was removed from object type 'Organization'",
        '    not acknowledged: name `Organization.slug` under `## [0.2.0]` (or a later incompatible version) in CHANGELOG.md',
        '',
        'Not releasable as it is: see above (docs/schema-evolution.md says how to acknowledge a breaking change).',
        '',
      ].join('\n'),
    );
  });
});
