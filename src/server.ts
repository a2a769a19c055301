// Starting and stopping the service: database (embedded when DATABASE_URL is unset), migrations, API.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type PgBoss from 'pg-boss';
import { join } from 'node:path';
import type { Config } from './config.js';
import { startEmbeddedPostgres } from './db/embedded.js';
import { migrate } from './db/migrate.js';
import { type Pool, createPool } from './db/pool.js';
import { pruneRateLimitCounters } from './db/rate-limit.js';
import { PgStore } from './db/store.js';
import { createApp } from './http/app.js';
import type { Logger } from './logger.js';
import { createSecretBox } from './secret-box.js';

export interface Database {
  pool: Pool;
  connectionString: string;
  embedded: boolean;
  close(): Promise<void>;
}

/** DATABASE_URL when set; otherwise a PostgreSQL of our own in the data folder. */
export async function openDatabase(config: Readonly<Config>, logger: Logger): Promise<Database> {
  const onIdleError = (error: Error) => logger.warn({ err: error }, 'idle database connection lost');
  if (config.databaseUrl) {
    const pool = createPool(config.databaseUrl, 10, onIdleError);
    return { pool, connectionString: config.databaseUrl, embedded: false, close: () => pool.end() };
  }
  logger.info({ dataDir: config.dataDir, port: config.embeddedPgPort }, 'DATABASE_URL is not set: starting embedded PostgreSQL');
  const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort });
  const pool = createPool(embedded.connectionString, 10, onIdleError);
  return {
    pool,
    connectionString: embedded.connectionString,
    embedded: true,
    close: async () => {
      await pool.end();
      await embedded.stop();
    },
  };
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

export interface RunningApi {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export interface ApiExtras {
  queue?: PgBoss;
}

export async function startApi(config: Readonly<Config>, pool: Pool, logger: Logger, extras: ApiExtras = {}): Promise<RunningApi> {
  const secretBox = config.secretKey ? createSecretBox(config.secretKey) : undefined;
  const app = createApp({ config, pool, store: new PgStore(pool), logger, queue: extras.queue, secretBox });
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(config.port, config.host, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  const prune = setInterval(() => {
    pruneRateLimitCounters(pool).catch((error) => logger.warn({ err: error }, 'pruning rate-limit counters failed'));
  }, 60_000);
  prune.unref();
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://localhost:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(prune);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function migrateDatabase(pool: Pool, logger: Logger): Promise<void> {
  const applied = await migrate(pool);
  if (applied.length) logger.info({ applied }, 'migrations applied');
}
