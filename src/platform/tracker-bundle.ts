// The single script served at /js/affix-tracker.js. The production build ships it prebuilt
// (dist/tracker/affix-tracker.js, by scripts/build.ts); from a clone it is built from
// tracker/affix-tracker.ts with esbuild (a development dependency) on first request.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const PREBUILT = fileURLToPath(new URL('../tracker/affix-tracker.js', import.meta.url));
const ENTRY = fileURLToPath(new URL('../../tracker/affix-tracker.ts', import.meta.url));
let bundle: Promise<string> | null = null;
let gzipped: Promise<Buffer> | null = null;

/** The same script gzip-compressed, once (level 9: it is compressed once and served many times). */
export function trackerScriptGzip(): Promise<Buffer> {
  gzipped ??= trackerScript().then((text) => gzipSync(text, { level: 9 }));
  return gzipped;
}

export function trackerScript(): Promise<string> {
  bundle ??= (existsSync(PREBUILT) ? readFile(PREBUILT, 'utf8') : buildTracker()).catch((error) => {
    bundle = null;
    throw error;
  });
  return bundle;
}

/** esbuild, minified, no runtime dependencies: the tracker runs on brands' pages. */
export async function buildTracker(): Promise<string> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2018'],
    write: false,
    legalComments: 'none',
  });
  return result.outputFiles[0]!.text;
}
