// The layer rules of .dependency-cruiser.cjs catch a wrong arrow: planted in a scratch tree, each
// forbidden import fails the check with its rule's name. The real tree is checked by `npm test`
// itself (`npm run layers`, before vitest), so it is not run a second time here.
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

async function cruise(files: Record<string, string>, flags: string[] = []): Promise<{ code: number; output: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'affix-layers-'));
  dirs.push(dir);
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', allowImportingTsExtensions: false } }));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  const bin = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
  return run(process.execPath, [bin, 'src', '--config', join(ROOT, '.dependency-cruiser.cjs'), ...flags], { cwd: dir, maxBuffer: 16 * 1024 * 1024 }).then(
    ({ stdout }) => ({ code: 0, output: stdout }),
    (error) => ({ code: error.code, output: `${error.stdout}${error.stderr}` }),
  );
}


// Each planted import lives in its own files, so one run of the checker over one scratch tree
// shows every rule catching its own arrow (one start of dependency-cruiser instead of seven).
const PLANTED: Array<{ rule: string; from: string; files: Record<string, string> }> = [
  { rule: 'core-is-pure', from: 'src/core/rule.ts', files: { 'src/core/rule.ts': "import { q } from '../db/core-target.js';\nexport const r = q;\n", 'src/db/core-target.ts': 'export const q = 1;\n' } },
  { rule: 'db-only-below', from: 'src/db/sql.ts', files: { 'src/db/sql.ts': "import { h } from '../http/route.js';\nexport const q = h;\n", 'src/http/route.ts': 'export const h = 1;\n' } },
  { rule: 'app-only-below', from: 'src/app/use.ts', files: { 'src/app/use.ts': "import { h } from '../http/app-target.js';\nexport const u = h;\n", 'src/http/app-target.ts': 'export const h = 1;\n' } },
  { rule: 'doors-through-app', from: 'src/http/routes/admin.ts', files: { 'src/http/routes/admin.ts': "import { q } from '../../db/admin-target.js';\nexport const a = q;\n", 'src/db/admin-target.ts': 'export const q = 1;\n' } },
  { rule: 'doors-through-app', from: 'src/http/cors.ts', files: { 'src/http/cors.ts': "import { q } from '../db/origins.js';\nexport const c = q;\n", 'src/db/origins.ts': 'export const q = 1;\n' } },
  { rule: 'doors-through-app', from: 'src/mcp/server.ts', files: { 'src/mcp/server.ts': "import { q } from '../db/insights.js';\nexport const m = q;\n", 'src/db/insights.ts': 'export const q = 1;\n' } },
  { rule: 'no-circular', from: 'src/app/a.ts', files: { 'src/app/a.ts': "import { b } from './b.js';\nexport const a = b;\n", 'src/app/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n" } },
];

it('every planted import fails the check with its own rule, and nothing else is reported', async () => {
  const files = Object.assign({}, ...PLANTED.map((planted) => planted.files)) as Record<string, string>;
  expect(Object.keys(files)).toHaveLength(PLANTED.reduce((sum, planted) => sum + Object.keys(planted.files).length, 0));
  // The json reporter exits 0 whatever it finds; the violations are read from its summary.
  const result = await cruise(files, ['--output-type', 'json']);
  const found = (JSON.parse(result.output) as { summary: { violations: Array<{ from: string; rule: { name: string } }> } }).summary.violations
    .map((violation) => `${violation.rule.name} ${violation.from}`);
  for (const planted of PLANTED) expect(found, planted.rule).toContain(`${planted.rule} ${planted.from}`);
  const expected = new Set(PLANTED.map((planted) => `${planted.rule} ${planted.from}`));
  expect(found.filter((line) => !expected.has(line) && !line.startsWith('no-circular '))).toEqual([]);
}, 60_000);
