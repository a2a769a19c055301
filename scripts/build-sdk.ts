// Builds packages/sdk: ESM and CommonJS with esbuild, declarations with tsc.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '../packages/sdk');
rmSync(join(root, 'dist'), { recursive: true, force: true });
const entries = ['index', 'server', 'react'].map((name) => join(root, 'src', `${name}.ts`));
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
console.log('built packages/sdk/dist');
