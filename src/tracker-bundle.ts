// Builds tracker/affix-tracker.ts into the single script served at /js/affix-tracker.js
// (esbuild, minified, no runtime dependencies). Built once per process, on first request.
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const ENTRY = fileURLToPath(new URL('../tracker/affix-tracker.ts', import.meta.url));
let bundle: Promise<string> | null = null;
let gzipped: Promise<Buffer> | null = null;

/** The same script gzip-compressed (most of it is the public-suffix list, which compresses well). */
export function trackerScriptGzip(): Promise<Buffer> {
  gzipped ??= trackerScript().then((text) => gzipSync(text, { level: 9 }));
  return gzipped;
}

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
