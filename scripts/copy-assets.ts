// The second half of `npm run build`: tsc emits only the TypeScript, so every other file under src/
// that the server reads at run time (GraphiQL's bootstrap script, whatever comes next) is copied to
// the same place under dist/.
import { cpSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../src/', import.meta.url));
const dist = fileURLToPath(new URL('../dist/', import.meta.url));

const assets = readdirSync(src, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && !entry.name.endsWith('.ts'))
  .map((entry) => relative(src, join(entry.parentPath, entry.name)));
for (const path of assets) cpSync(join(src, path), join(dist, path));
console.log(`copied to dist/: ${assets.join(', ')}`);
