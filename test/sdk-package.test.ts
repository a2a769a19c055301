// The SDK as a brand installs it: `npm pack` (its prepack builds dist/), installed from the
// tarball into a scratch app, then used from ESM, CommonJS and TypeScript.
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
let dir = '';
let app = '';
let appRoot = '';

beforeAll(async () => {
  // A copy of the repository's shape, so packing (which rebuilds dist/) never touches the
  // dist/ that other test files import meanwhile.
  dir = await mkdtemp(join(tmpdir(), 'affix-sdk-pack-'));
  await mkdir(join(dir, 'packages'), { recursive: true });
  await cp(join(ROOT, 'packages/sdk'), join(dir, 'packages/sdk'), { recursive: true, filter: (source) => !source.includes('/dist') });
  await symlink(join(ROOT, 'scripts'), join(dir, 'scripts'));
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const env = { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}` };
  await run('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: join(dir, 'packages/sdk'), env });
  const tarball = (await readdir(dir)).find((name) => name.endsWith('.tgz'));
  expect(tarball).toBe('affix-sdk-0.1.0.tgz');

  // Outside the packing folder, whose node_modules leads back to the repository's own.
  appRoot = await mkdtemp(join(tmpdir(), 'affix-sdk-app-'));
  app = join(appRoot, 'app');
  await mkdir(app);
  await writeFile(join(app, 'package.json'), JSON.stringify({ name: 'scratch-app', private: true }));
  await run('npm', ['install', join(dir, tarball!), '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--silent'], { cwd: app, env });
}, 120_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  if (appRoot) await rm(appRoot, { recursive: true, force: true });
});

it('the tarball ships the built files of every entry point', async () => {
  const files = await readdir(join(app, 'node_modules/@affix/sdk/dist'));
  for (const entry of ['index', 'server', 'react']) {
    expect(files).toEqual(expect.arrayContaining([`${entry}.js`, `${entry}.cjs`, `${entry}.d.ts`]));
  }
});

it('works from ESM and CommonJS', async () => {
  await writeFile(
    join(app, 'esm.mjs'),
    `import { Affix } from '@affix/sdk/server';\nimport { loadAffix } from '@affix/sdk';\nconst affix = new Affix({ apiKey: 'affix_sk_x', apiUrl: 'http://127.0.0.1:9' });\nconsole.log(typeof affix.trackSale, typeof loadAffix);\n`,
  );
  await writeFile(
    join(app, 'cjs.cjs'),
    `const { Affix } = require('@affix/sdk/server');\nconst { loadAffix } = require('@affix/sdk');\nconsole.log(typeof new Affix({ apiKey: 'affix_sk_x' }).trackLead, typeof loadAffix);\n`,
  );
  expect((await run(process.execPath, ['esm.mjs'], { cwd: app })).stdout).toBe('function function\n');
  expect((await run(process.execPath, ['cjs.cjs'], { cwd: app })).stdout).toBe('function function\n');
});

it('its types check in a TypeScript app (and catch a wrong call)', async () => {
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const options = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck'];
  await writeFile(
    join(app, 'good.mts'),
    `import { Affix, type AffixResponse } from '@affix/sdk/server';\nconst affix = new Affix({ apiKey: 'k' });\nconst reply: Promise<AffixResponse<unknown>> = affix.trackSale({ amount: 4900, invoiceId: 'inv_1', customerExternalId: 'u1' });\nvoid reply;\n`,
  );
  await run(process.execPath, [tsc, ...options, 'good.mts'], { cwd: app });
  await writeFile(join(app, 'bad.mts'), `import { Affix } from '@affix/sdk/server';\nnew Affix({ apiKey: 'k' }).trackSale({ amount: '49' });\n`);
  const failed = await run(process.execPath, [tsc, ...options, 'bad.mts'], { cwd: app }).then(() => null, (error) => error);
  expect(failed?.stdout).toMatch(/bad\.mts.*error TS/);
});
