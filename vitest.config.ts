import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    // Vitest's default is one file at a time on two cores (cores - 1). Most of the slow files wait
    // on processes of their own (service starts, chaos, failover, browsers): two at a time.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
