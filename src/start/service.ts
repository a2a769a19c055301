// Starts the service's parts in order and registers how each stops: the API and the workers
// on one database, in one process or apart. `affix start|api|worker` call this.
import type { Config } from '../platform/config.js';
import { DATABASE_TIMEOUTS } from '../db/infra/pool.js';
import { type DemoProgram, ensureDemo } from '../app/programs/demo.js';
import { startWorkers } from '../jobs/index.js';
import type { Logger } from '../platform/logger.js';
import { startQueue } from '../platform/queue.js';
import { type RunningApi, startApi } from './api.js';
import { migrateDatabase, openDatabase, resolveLocalSecrets, waitForDatabase } from './database.js';
import { type Lifecycle, createLifecycle } from './lifecycle.js';

export interface Roles {
  api: boolean;
  worker: boolean;
}

export interface RunningService {
  lifecycle: Lifecycle;
  config: Readonly<Config>;
  api: RunningApi | null;
  embedded: boolean;
  demo: DemoProgram | null;
}

/** How long in-flight requests and running jobs get to finish once a stop begins. */
export const DRAIN_MS = 8_000;

export async function startService(initial: Readonly<Config>, logger: Logger, roles: Roles): Promise<RunningService> {
  const lifecycle = createLifecycle(logger);
  try {
    const statementTimeoutMs = roles.api ? DATABASE_TIMEOUTS.requestStatementMs : DATABASE_TIMEOUTS.workerStatementMs;
    const database = await openDatabase(initial, logger, { statementTimeoutMs });
    lifecycle.onStop('database server', database.stopServer);
    lifecycle.onStop('database pool', database.endPool);
    await waitForDatabase(database.pool, logger, initial.databaseWaitSeconds);
    const config = await resolveLocalSecrets(initial, database.embedded);
    await migrateDatabase(database.direct ?? database.pool, logger);
    const queue = await startQueue(database.connectionString, config.worker, { supervise: roles.worker, logger, pooling: database.pooling });
    // Running jobs get the drain time to finish; the rest are handed back for an immediate retry.
    lifecycle.onStop('job queue', () => queue.stop({ graceful: true, wait: true, timeout: DRAIN_MS }));
    // The demo (a program, a key, a password) belongs to a local try-out only: never seeded or
    // printed on a database of one's own (DATABASE_URL), and kept in the embedded data folder.
    const demo = roles.api && database.embedded && config.seedDemo ? await ensureDemo(database.pool, config) : null;
    const api = roles.api ? await startApi(config, database.pool, logger, { queue, reads: database.reads }) : null;
    if (api) lifecycle.onStop('api', () => api.close(DRAIN_MS));
    if (roles.worker) {
      const workers = await startWorkers(queue, { pool: database.pool, listenPool: database.direct, logger }, config);
      lifecycle.onStop('worker sweep and listener', () => workers.stop());
    }
    return { lifecycle, config, api, embedded: database.embedded, demo };
  } catch (error) {
    // A part that started before the failure is stopped again (the embedded server above all).
    await lifecycle.stop('start failed');
    throw error;
  }
}
