#!/usr/bin/env node
// Guards CI against a blind test runner: runs a test that fails on purpose, with the same
// global setup as the suite (it starts PostgreSQL), and requires a non-zero exit. Once, a
// library's exit hook turned every failing run into exit 0; this stops that from coming back.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const vitest = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
const run = spawnSync(process.execPath, [vitest, 'run', '--config', 'test/canary/vitest.canary.config.ts'], {
  encoding: 'utf8',
  env: { ...process.env, CI: 'true' },
});
if (run.status === 0 || run.status === null) {
  process.stderr.write(`${run.stdout}\n${run.stderr}\n`);
  process.stderr.write(`check-test-exit: a failing test exited with ${run.status ?? run.signal}; the test runner cannot fail CI\n`);
  process.exit(1);
}
process.stdout.write(`check-test-exit: a failing test makes the runner exit ${run.status} (as it must)\n`);
