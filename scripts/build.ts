// The production build: src/ compiled to plain JavaScript in dist/ (no tsx at run time), and the
// browser tracker prebuilt to dist/tracker/affix-tracker.js (no esbuild at run time).
// Usage: tsx scripts/build.ts [outDir]   (default dist)
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { buildTracker } from '../src/platform/tracker-bundle.js';

const root = join(import.meta.dirname, '..');
const outDir = resolve(root, process.argv[2] ?? 'dist');
rmSync(outDir, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir], { stdio: 'inherit' });
mkdirSync(join(outDir, 'tracker'), { recursive: true });
writeFileSync(join(outDir, 'tracker', 'affix-tracker.js'), await buildTracker());
console.log(`built ${outDir}`);
