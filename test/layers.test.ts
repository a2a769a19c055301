// The layer rules of .dependency-cruiser.cjs (run on src/ by `npm test`) catch a wrong arrow:
// planted in a scratch tree, each forbidden import fails the check with its rule's name.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function cruise(files: Record<string, string>): Promise<{ code: number; output: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'affix-layers-'));
  dirs.push(dir);
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', allowImportingTsExtensions: false } }));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const bin = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  return run(process.execPath, [bin, 'src', '--config', join(ROOT, '.dependency-cruiser.cjs')], { cwd: dir }).then(
    ({ stdout }) => ({ code: 0, output: stdout }),
    (error) => ({ code: error.code, output: `${error.stdout}${error.stderr}` }),
  );
}

it('the real tree passes', async () => {
  const bin = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  const { stdout } = await run(process.execPath, [bin, 'src', '--config', '.dependency-cruiser.cjs'], { cwd: ROOT });
  expect(stdout).toContain('no dependency violations found');
}, 60_000);

it.each([
  ['core-is-pure', { 'src/core/rule.ts': "import { q } from '../db/sql.js';\nexport const r = q;\n", 'src/db/sql.ts': 'export const q = 1;\n' }],
  ['db-only-below', { 'src/db/sql.ts': "import { h } from '../http/route.js';\nexport const q = h;\n", 'src/http/route.ts': 'export const h = 1;\n' }],
  ['app-only-below', { 'src/app/use.ts': "import { h } from '../http/route.js';\nexport const u = h;\n", 'src/http/route.ts': 'export const h = 1;\n' }],
  ['doors-through-app', { 'src/http/routes/admin.ts': "import { q } from '../../db/sql.js';\nexport const a = q;\n", 'src/db/sql.ts': 'export const q = 1;\n' }],
  ['doors-through-app', { 'src/http/cors.ts': "import { q } from '../db/origins.js';\nexport const c = q;\n", 'src/db/origins.ts': 'export const q = 1;\n' }],
  ['doors-through-app', { 'src/mcp/server.ts': "import { q } from '../db/insights.js';\nexport const m = q;\n", 'src/db/insights.ts': 'export const q = 1;\n' }],
  ['no-circular', { 'src/app/a.ts': "import { b } from './b.js';\nexport const a = b;\n", 'src/app/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n" }],
])('a planted import breaking %s fails the check', async (rule, files) => {
  const result = await cruise(files);
  expect(result.code).not.toBe(0);
  expect(result.output).toContain(rule);
}, 60_000);
