// Builds tracker/affix-tracker.ts into the single script served at /js/affix-tracker.js
// (esbuild, minified, no runtime dependencies). Built once per process, on first request.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ENTRY = fileURLToPath(new URL('../tracker/affix-tracker.ts', import.meta.url));
let bundle: Promise<string> | null = null;

export function trackerScript(): Promise<string> {
  bundle ??= build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2018'],
    write: false,
    legalComments: 'none',
  })
    .then((result) => result.outputFiles[0]!.text)
    .catch((error) => {
      bundle = null;
      throw error;
    });
  return bundle;
}
