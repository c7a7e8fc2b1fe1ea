import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.spec.ts'],
    // Each spec starts its own reference API on a loopback port, so files run in parallel safely.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    reporters: ['default'],
  },
});
