// autocannon in its own process (for bench/alloc.ts and bench/split.ts, whose own heap and CPU are
// the ones measured): drives the dashboard (or the query given) at a URL and prints the result as one
// JSON line.
//   node --import tsx bench/lib/drive-cli.ts <url> <key> <seconds> <connections> [query]
import { drive } from './drive.ts';
import { DASHBOARD, graphqlBody } from './queries.ts';

const [url, key, seconds, connections, query] = process.argv.slice(2);
if (!url || !key) throw new Error('usage: drive-cli.ts <url> <key> <seconds> <connections> [query]');
const result = await drive({
  url,
  key,
  body: graphqlBody(query ?? DASHBOARD),
  durationSec: Number(seconds ?? 5),
  connections: Number(connections ?? 50),
  checkBodies: true,
});
const { requests, requestsPerSec, non2xx, errors, bodyless, withErrors } = result;
console.log(JSON.stringify({ requests, requestsPerSec, non2xx, errors, bodyless, withErrors }));
