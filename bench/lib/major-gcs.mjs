// Preloaded into a benchmarked server (`node --import ./bench/lib/major-gcs.mjs`) by bench/tail.ts:
// appends each pause of a full collection (V8's mark-compact, and the finalising step of its
// incremental marking) to the file BENCH_MAJOR_GCS_FILE names, one `<pid> <epoch ms> <pause ms>` per line,
// so the slow answers of a round can be lined up with the collections that paused the server. Plain
// JavaScript: the gateway runs compiled, without a TypeScript loader.
import { appendFileSync } from 'node:fs';
import { constants, PerformanceObserver, performance } from 'node:perf_hooks';

const file = process.env.BENCH_MAJOR_GCS_FILE;
const FULL = new Set([constants.NODE_PERFORMANCE_GC_MAJOR, constants.NODE_PERFORMANCE_GC_INCREMENTAL]);

if (file) {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (FULL.has(entry.detail?.kind)) appendFileSync(file, `${process.pid} ${(performance.timeOrigin + entry.startTime).toFixed(1)} ${entry.duration.toFixed(1)}\n`);
    }
  }).observe({ entryTypes: ['gc'] });
}
