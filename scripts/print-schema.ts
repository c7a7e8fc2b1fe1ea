// `npm run schema` writes schema.graphql; `npm run schema -- --check` fails when it is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { printPublicSchema } from '../src/schema/print.ts';

const file = new URL('../schema.graphql', import.meta.url);
const printed = printPublicSchema();
if (process.argv.includes('--check')) {
  const committed = readFileSync(file, 'utf8');
  if (committed !== printed) {
    console.error('schema.graphql is stale: run `npm run schema`.');
    process.exit(1);
  }
  console.log('schema.graphql is up to date.');
} else {
  writeFileSync(file, printed);
  console.log('wrote schema.graphql');
}
