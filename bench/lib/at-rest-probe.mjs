// Preloaded into the gateway by bench/at-rest.ts (`node --expose-gc --import ./bench/lib/at-rest-probe.mjs
// dist/main.js`): on SIGUSR2 it runs two full collections and prints the heap and RSS at rest as one
// JSON line on stderr. Plain JavaScript: the gateway runs compiled, without a TypeScript loader.
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  const { heapUsed, rss } = process.memoryUsage();
  process.stderr.write(`${JSON.stringify({ atRest: { heapUsedMb: heapUsed / 1e6, rssMb: rss / 1e6 } })}\n`);
});
