import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (index.js) and ESM (index.mjs); Node and the dependencies load the CJS
    // one, so the tests must too, or the schema's types come from "another realm".
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.spec.ts'],
    // Every gateway and child process logs to one file, checked for keys after the run.
    globalSetup: ['test/ops/log-key-check.global.ts'],
    // Each spec starts its own reference API on a loopback port, so files run in parallel safely.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    reporters: ['default'],
  },
});
