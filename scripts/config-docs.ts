// `npm run config:docs` prints the settings tables of docs/configuration.md from the declaration in
// src/config/settings.ts; `npm run config:docs -- --check` fails when the page is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsTables } from '../src/config/docs.ts';

const page = new URL('../docs/configuration.md', import.meta.url);
const current = readFileSync(page, 'utf8');
const printed = withSettingsTables(current);

if (process.argv.includes('--check')) {
  if (printed !== current) {
    console.error('docs/configuration.md is stale: run `npm run config:docs`.');
    process.exit(1);
  }
  console.log('docs/configuration.md is up to date.');
} else {
  writeFileSync(page, printed);
  console.log('wrote docs/configuration.md');
}
