// autocannon in its own process (for bench/alloc.ts, whose own heap is the one measured): drives the
// dashboard at a URL and prints the result as one JSON line.
//   node --import tsx bench/lib/drive-cli.ts <url> <key> <seconds> <connections>
import { drive } from './drive.ts';
import { DASHBOARD, graphqlBody } from './queries.ts';

const [url, key, seconds, connections] = process.argv.slice(2);
if (!url || !key) throw new Error('usage: drive-cli.ts <url> <key> <seconds> <connections>');
const result = await drive({
  url,
  key,
  body: graphqlBody(DASHBOARD),
  durationSec: Number(seconds ?? 5),
  connections: Number(connections ?? 50),
  checkBodies: true,
});
const { requests, requestsPerSec, non2xx, errors, bodyless, withErrors } = result;
console.log(JSON.stringify({ requests, requestsPerSec, non2xx, errors, bodyless, withErrors }));
