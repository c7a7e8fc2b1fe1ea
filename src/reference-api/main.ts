// `npm run reference-api`: serves the reference API on PORT (default 8010) and HOST (default
// 127.0.0.1), prints its URL and keys, and shuts down cleanly on SIGINT/SIGTERM.
import { startReferenceApi } from './index.ts';

const port = Number(process.env.PORT ?? 8010);
const host = process.env.HOST ?? '127.0.0.1';

const api = await startReferenceApi({ port: Number.isInteger(port) && port >= 0 ? port : 8010, host });

console.log(`Reference API listening on ${api.url}`);
console.log(`Try: curl -H 'Authorization: Bearer ${api.keys.demo}' ${api.url}/api/organizations/`);
console.log('Keys:');
for (const key of api.allKeys) {
  console.log(`  ${key.label.padEnd(18)} ${key.key}  user ${key.userId}  scopes: ${key.scopes.length ? key.scopes.join(' ') : '(none)'}`);
}

let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  console.log(`Received ${signal}, shutting down.`);
  api.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
