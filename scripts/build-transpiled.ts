// The suite's build of the service: src/ transpiled file by file with esbuild into dist/ (what tsx
// does to each file at run time, done once), and the tracker prebuilt, as scripts/build.ts lays
// them out. No type check here: `npm test` runs `tsc --noEmit` beside the suite, and the
// production image test still builds with tsc (scripts/build.ts). The suite's spawned `affix`
// processes load it (AFFIX_FROM_BUILD=1, bin/affix.mjs) about twice as fast as through tsx.
// Usage: tsx scripts/build-transpiled.ts   (called by scripts/test.mjs)
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { buildTracker } from '../src/platform/tracker-bundle.js';

const root = join(import.meta.dirname, '..');
const outDir = join(root, 'dist');
const sources = readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.endsWith('.d.ts'))
  .map((file) => join(root, 'src', file));
rmSync(outDir, { recursive: true, force: true });
await build({ entryPoints: sources, outdir: outDir, outbase: join(root, 'src'), format: 'esm', platform: 'node', target: 'node20', sourcemap: true, logLevel: 'warning' });
mkdirSync(join(outDir, 'tracker'), { recursive: true });
writeFileSync(join(outDir, 'tracker', 'affix-tracker.js'), await buildTracker());
console.log(`transpiled ${sources.length} files into dist/`);
