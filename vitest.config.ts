import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { LongestFirst } from './test/support/sequencer.js';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    pool: 'forks',
    // More files at once than cores: each file has its own database, and much of a file's time is
    // spent waiting on PostgreSQL, a spawned service, a browser or a restart it caused, not on its
    // own CPU (two at a time on two cores left about a third of the CPU idle over a run).
    maxWorkers: Math.max(3, availableParallelism()),
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
