// `npm run schema:diff`: schema.graphql and subgraph.graphql against the last release (released/),
// failing on a breaking change CHANGELOG.md does not acknowledge or a shipped operation that no longer
// validates. `npm run schema:release`: the same check, then the current schemas become the released
// ones. Both work on the project in the current directory (npm runs scripts from the project root).
import { GraphQLError } from 'graphql';
import { checkSchemaEvolution, formatReport, releaseSchema } from './schema-evolution/index.ts';

const root = process.cwd();
try {
  if (process.argv.includes('--release')) {
    const version = await releaseSchema(root);
    console.log(`released/ now holds the schemas of ${version}: commit it with CHANGELOG.md and package.json.`);
  } else {
    const report = await checkSchemaEvolution(root);
    (report.ok ? console.log : console.error)(formatReport(report));
    process.exitCode = report.ok ? 0 : 1;
  }
} catch (error) {
  // A GraphQLError prints the file and line of a syntax error.
  console.error(error instanceof GraphQLError ? error.toString() : (error as Error).message);
  process.exitCode = 1;
}
