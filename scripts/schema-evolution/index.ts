// The schema evolution check behind `npm run schema:diff` and `npm run schema:release`
// (docs/schema-evolution.md): the current schemas against the last released ones in released/,
// breaking changes against CHANGELOG.md, and the shipped operations against the current schema.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildSchema, Source } from 'graphql';
import { acknowledgementOf, type ChangelogSection, readChangelog } from './changelog.ts';
import { type SchemaChange, schemaChanges } from './changes.ts';
import { checkOperations, type OperationProblem, shippedOperations } from './operations.ts';
import { compareVersions } from './versions.ts';

/** Paths from the project root. */
const FILES = {
  schema: 'schema.graphql',
  subgraph: 'subgraph.graphql',
  releasedSchema: 'released/schema.graphql',
  releasedSubgraph: 'released/subgraph.graphql',
  changelog: 'CHANGELOG.md',
  manifest: 'examples/generated/persisted-documents.json',
  operations: 'examples/operations',
};

interface BreakingChange extends SchemaChange {
  /** The version whose CHANGELOG section names it, or what is missing. */
  acknowledgedIn?: string;
  missing?: string;
}

interface EvolutionReport {
  releasedVersion: string;
  breaking: BreakingChange[];
  dangerous: SchemaChange[];
  invalidOperations: OperationProblem[];
  deprecatedUses: OperationProblem[];
  operationCount: number;
  /** No unacknowledged breaking change and every shipped operation valid. */
  ok: boolean;
}

/** The released schema's first line names its version: `# release 0.1.0`. */
const RELEASE_LINE = /^# release (\d+\.\d+\.\d+)\n/;

const reader = (root: string) => (file: string) => readFileSync(join(root, file), 'utf8');

export async function checkSchemaEvolution(root: string, options: { releasing?: string } = {}): Promise<EvolutionReport> {
  const read = reader(root);
  if (!existsSync(join(root, FILES.releasedSchema))) {
    throw new Error(`${FILES.releasedSchema} is missing: \`npm run schema:release\` writes it when the first version is released.`);
  }
  const releasedVersion = RELEASE_LINE.exec(read(FILES.releasedSchema))?.[1];
  if (!releasedVersion)
    throw new Error(`${FILES.releasedSchema} must start with \`# release x.y.z\`: \`npm run schema:release\` writes it.`);
  const packageVersion = versionOf(read('package.json'));
  if (!options.releasing && packageVersion !== releasedVersion) {
    throw new Error(
      `package.json's version is ${packageVersion}, ${FILES.releasedSchema}'s ${releasedVersion}: finish the release with \`npm run schema:release\`.`,
    );
  }
  const sections = readChangelog(read(FILES.changelog));
  if (!sections.some(({ version, date }) => version === releasedVersion && date)) {
    throw new Error(`${FILES.changelog} has no dated \`## [${releasedVersion}] - YYYY-MM-DD\` section for the released schema.`);
  }

  const source = (file: string) => new Source(read(file), file);
  const changes = await schemaChanges(
    { released: source(FILES.releasedSchema), current: source(FILES.schema) },
    { released: source(FILES.releasedSubgraph), current: source(FILES.subgraph) },
  );
  const breaking = changes
    .filter(({ level }) => level === 'breaking')
    .map((change) => acknowledged(change, sections, releasedVersion, options.releasing));
  const operations = shippedOperations(root, FILES.manifest, FILES.operations);
  const { invalid, deprecated } = checkOperations(buildSchema(source(FILES.schema)), operations);
  return {
    releasedVersion,
    breaking,
    dangerous: changes.filter(({ level }) => level === 'dangerous'),
    invalidOperations: invalid,
    deprecatedUses: deprecated,
    operationCount: operations.length,
    ok: breaking.every(({ missing }) => !missing) && invalid.length === 0,
  };
}

const versionOf = (packageJson: string) => (JSON.parse(packageJson) as { version: string }).version;

function acknowledged(change: SchemaChange, sections: readonly ChangelogSection[], released: string, releasing?: string): BreakingChange {
  const acknowledgement = acknowledgementOf(change.coordinate, sections, released, releasing);
  return 'version' in acknowledgement
    ? { ...change, acknowledgedIn: acknowledgement.version }
    : { ...change, missing: acknowledgement.missing };
}

/** The report as the CLI prints it. Safe changes are not listed. */
export function formatReport(report: EvolutionReport): string {
  const lines: string[] = [];
  const section = (title: string, entries: string[]) => {
    if (entries.length > 0) lines.push(`${title}:`, ...entries.map((entry) => `  ${entry}`), '');
  };
  const change = ({ coordinate, message, file }: SchemaChange) => `\`${coordinate}\` (${file}): ${message}`;
  section(
    `Breaking changes since ${report.releasedVersion}`,
    report.breaking.map((breaking) => `${change(breaking)}\n    ${breaking.missing ?? `acknowledged in ${breaking.acknowledgedIn}`}`),
  );
  section(
    `Shipped operations that do not validate against ${FILES.schema}`,
    report.invalidOperations.map(({ source, message }) => `${source}: ${message}`),
  );
  section('Dangerous changes (they break no valid operation, but may surprise a client: read each)', report.dangerous.map(change));
  section(
    'Shipped operations that use something deprecated',
    report.deprecatedUses.map(({ source, message }) => `${source}: ${message}`),
  );
  const verdict = !report.ok
    ? 'Not releasable as it is: see above (docs/schema-evolution.md says how to acknowledge a breaking change).'
    : `${report.breaking.length === 0 ? 'No breaking change' : 'Every breaking change is acknowledged'} since release ${report.releasedVersion}; ${report.operationCount} shipped operations validate.`;
  return [...lines, verdict].join('\n');
}

/**
 * Cuts a release: package.json's version must have a dated CHANGELOG section, be newer than the last
 * release, and pass the check with acknowledgements up to that version; then the current schemas
 * become the released ones. The first release needs no earlier one. Returns the version.
 */
export async function releaseSchema(root: string): Promise<string> {
  const read = reader(root);
  const version = versionOf(read('package.json'));
  const section = readChangelog(read(FILES.changelog)).find((candidate) => candidate.version === version);
  if (!section?.date)
    throw new Error(`${FILES.changelog} needs a dated \`## [${version}] - YYYY-MM-DD\` section for package.json's version ${version}.`);
  if (existsSync(join(root, FILES.releasedSchema))) {
    const report = await checkSchemaEvolution(root, { releasing: version });
    if (compareVersions(version, report.releasedVersion) <= 0) {
      throw new Error(`package.json's version ${version} is not newer than the released ${report.releasedVersion}: bump it first.`);
    }
    if (!report.ok) throw new Error(formatReport(report));
  }
  for (const [from, to] of [
    [FILES.schema, FILES.releasedSchema],
    [FILES.subgraph, FILES.releasedSubgraph],
  ] as const) {
    mkdirSync(dirname(join(root, to)), { recursive: true });
    writeFileSync(
      join(root, to),
      `# release ${version}\n# Written by \`npm run schema:release\`; \`npm run schema:diff\` compares ${from} with it.\n${read(from)}`,
    );
  }
  return version;
}
