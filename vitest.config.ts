import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/sequencer.js';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    // Two files at a time even on two cores: each file has its own database, and much of a file's
    // time is spent waiting on PostgreSQL, a spawned service or a browser. Three at a time on two
    // cores was tried: docs/operations.md, "The test suite".
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // A worker keeps its modules from one file to the next: isolated, every file paid about 2 s of
    // CPU to load the app and its libraries again (a fifth of the suite's CPU). Files share no
    // state through them: each has its own database and app, and nock is switched off after the
    // file that used it (test/support/nock.ts).
    isolate: false,
    sequence: { sequencer: LongestFirst },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
