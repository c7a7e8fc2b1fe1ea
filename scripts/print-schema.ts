// `npm run schema` writes schema.graphql (the public schema) and subgraph.graphql (the federation
// subgraph SDL, what `_service { sdl }` answers); `npm run schema -- --check` fails when either is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { printPublicSchema } from '../src/schema/print.ts';
import { printSubgraphSdl } from '../src/schema/subgraph.ts';

const outputs = [
  { name: 'schema.graphql', printed: printPublicSchema() },
  { name: 'subgraph.graphql', printed: printSubgraphSdl() },
];

if (process.argv.includes('--check')) {
  const read = (name: string) => {
    try {
      return readFileSync(new URL(`../${name}`, import.meta.url), 'utf8');
    } catch {
      return undefined;
    }
  };
  const stale = outputs.filter(({ name, printed }) => read(name) !== printed).map(({ name }) => name);
  if (stale.length > 0) {
    console.error(`${stale.join(' and ')} ${stale.length > 1 ? 'are' : 'is'} stale: run \`npm run schema\`.`);
    process.exit(1);
  }
  console.log(`${outputs.map(({ name }) => name).join(' and ')} are up to date.`);
} else {
  for (const { name, printed } of outputs) {
    writeFileSync(new URL(`../${name}`, import.meta.url), printed);
    console.log(`wrote ${name}`);
  }
}
