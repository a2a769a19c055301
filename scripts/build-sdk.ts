// Builds packages/sdk (or the package folder given): ESM and CommonJS with esbuild, declarations
// with tsc. The package's prepack runs it on its own folder, so `npm pack` ships dist/.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

const root = process.argv[2] ? resolve(process.argv[2]) : join(import.meta.dirname, '../packages/sdk');
rmSync(join(root, 'dist'), { recursive: true, force: true });
const entries = ['index', 'server', 'react', 'http'].map((name) => join(root, 'src', `${name}.ts`));
for (const format of ['esm', 'cjs'] as const) {
  await build({
    entryPoints: entries,
    outdir: join(root, 'dist'),
    format,
    bundle: true,
    platform: 'neutral',
    target: ['es2020'],
    external: ['react'],
    outExtension: { '.js': format === 'esm' ? '.js' : '.cjs' },
    logLevel: 'warning',
  });
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' });
console.log(`built ${join(root, 'dist')}`);
