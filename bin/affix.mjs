#!/usr/bin/env node
// The `affix` command, in this very process (signals reach the service directly; no child).
// From a clone it runs the TypeScript sources through tsx's loader; the production image has
// no sources, only the build in dist/. AFFIX_FROM_BUILD=1 runs the build in a clone too: the
// suite sets it once it has built dist/ from the sources (scripts/test.mjs), since a process
// loads about twice as fast from the build as through tsx.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
if (existsSync(source) && process.env.AFFIX_FROM_BUILD !== '1') {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import(new URL('../dist/cli/main.js', import.meta.url).href);
}
