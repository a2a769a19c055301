// The one build of the service: src/ type-checked (tsc, no output), then transpiled file by file
// with esbuild into dist/ (plain JavaScript with source maps: no tsx at run time), and the browser
// tracker prebuilt to dist/tracker/affix-tracker.js (no esbuild at run time). The Dockerfile runs
// it whole; `npm test` and the production image test pass --no-type-check, because `npm test`
// runs `tsc --noEmit` over src/ and test/ beside the suite (README, "Tests").
// Usage: tsx scripts/build.ts [outDir] [--no-type-check]   (default dist)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { buildTracker } from '../src/platform/tracker-bundle.js';

const root = join(import.meta.dirname, '..');
const args = process.argv.slice(2);
const typeCheck = !args.includes('--no-type-check');
const outDir = resolve(root, args.find((arg) => !arg.startsWith('--')) ?? 'dist');

if (typeCheck) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--noEmit'], { stdio: 'inherit' });
}
const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.d.ts'))
  .map((file) => join(root, 'src', file));
rmSync(outDir, { recursive: true, force: true });
await build({ entryPoints: sources, outdir: outDir, outbase: join(root, 'src'), format: 'esm', platform: 'node', target: 'node20', sourcemap: true, logLevel: 'warning' });
mkdirSync(join(outDir, 'tracker'), { recursive: true });
writeFileSync(join(outDir, 'tracker', 'affix-tracker.js'), await buildTracker());
console.log(`built ${sources.length} files into ${outDir}${typeCheck ? '' : ' (no type check)'}`);
