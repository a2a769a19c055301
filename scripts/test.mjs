#!/usr/bin/env node
// `npm test`: the SDK's and the service's builds first (the suite loads them), then the suite side by
// side with the checks that need nothing from it: the canary (a failing test must fail the run),
// the type check and the layer rules. The suite's files spend much of their time waiting on
// PostgreSQL, spawned services and a browser, so the checks take CPU that would otherwise idle
// (in series they added about 40 s to a run on two cores; README, "Tests").
// Exit status: non-zero when the suite or any check fails. A check's output is printed only when
// it fails; the suite's closing line ("N passed, N failed, N skipped") stays the last line of a
// passing run.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bin = (pkg, file) => join(root, 'node_modules', pkg, file);

/** Runs a command; its output kept (not shown) unless `shown`. Resolves with its exit code. */
function run(label, args, { shown = false, env = process.env } = {}) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: shown ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('close', (code, signal) => resolve({ label, code: code ?? (signal ? 1 : 0), output, seconds: (performance.now() - started) / 1000 }));
  });
}

// The SDK's build and the service's build into dist/ without its type check (scripts/build.ts; the
// type check runs below, beside the suite): the suite's spawned `affix` processes run that
// (AFFIX_FROM_BUILD=1, bin/affix.mjs).
const [sdk, build] = await Promise.all([
  run('build:sdk', [bin('tsx', 'dist/cli.mjs'), 'scripts/build-sdk.ts'], { shown: true }),
  run('build', [bin('tsx', 'dist/cli.mjs'), 'scripts/build.ts', 'dist', '--no-type-check']),
]);
for (const step of [sdk, build]) {
  if (step.code !== 0) {
    process.stderr.write(`${step.output}\nnpm test: ${step.label} failed (exit ${step.code})\n`);
    process.exit(step.code);
  }
}

let suiteDone = false;
const checks = [
  run('check-test-exit', ['scripts/check-test-exit.mjs']),
  run('tsc --noEmit', [bin('typescript', 'bin/tsc'), '--noEmit']),
  run('layers', [bin('dependency-cruiser', 'bin/dependency-cruise.mjs'), 'src', '--config', '.dependency-cruiser.cjs']),
].map((check) =>
  check.then((result) => {
    if (result.code !== 0) process.stderr.write(`\n${result.output}\nnpm test: ${result.label} failed (exit ${result.code})\n`);
    else if (!suiteDone) process.stdout.write(`${result.label}: passed in ${result.seconds.toFixed(1)} s\n`);
    return result;
  }),
);
const suite = await run('vitest', [bin('vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)], { shown: true, env: { ...process.env, AFFIX_FROM_BUILD: '1' } });
suiteDone = true;
const failed = [suite, ...(await Promise.all(checks))].filter((result) => result.code !== 0);
if (failed.length) {
  process.stderr.write(`npm test failed: ${failed.map((result) => result.label).join(', ')}\n`);
  process.exit(1);
}
