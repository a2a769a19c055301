#!/usr/bin/env node
// The `affix` command: run the service, migrate, and manage programs through the admin API.
import { Command, CommanderError } from 'commander';
import { loadConfig } from '../config.js';
import { ensureDemo, walkthrough } from '../demo.js';
import { createLogger } from '../logger.js';
import { PgStore } from '../db/store.js';
import { startQueue } from '../queue.js';
import { migrateDatabase, openDatabase, resolveLocalSecrets, startApi } from '../server.js';
import { startWorkers } from '../../workers/index.js';
import { registerAdminCommands } from './admin-commands.js';
import { registerStripeCommands } from './stripe-commands.js';
import { registerClientCommands } from './client/commands.js';
import { CliError, EXIT } from './client/exit-codes.js';

const program = new Command();
program.name('affix').description('Affix: affiliate and partner attribution service').showHelpAfterError();
// Usage errors exit 2; API errors carry their own code (client/exit-codes.ts). Set before any
// subcommand exists, so every subcommand inherits it.
program.exitOverride();

interface Roles {
  api: boolean;
  worker: boolean;
}

async function runService(roles: Roles): Promise<void> {
  const initial = loadConfig();
  const logger = createLogger(initial.logLevel);
  const database = await openDatabase(initial, logger);
  const config = await resolveLocalSecrets(initial, database.embedded);
  await migrateDatabase(database.pool, logger);
  const queue = await startQueue(database.connectionString, config.worker, { supervise: roles.worker });
  const demo = roles.api && config.seedDemo ? await ensureDemo(database.pool, config) : null;
  const api = roles.api ? await startApi(config, database.pool, logger, { queue }) : null;
  if (roles.worker) await startWorkers(queue, { pool: database.pool, store: new PgStore(database.pool), logger }, config);
  const stop = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await api?.close();
    await queue.stop({ graceful: true, timeout: 10_000 }).catch(() => undefined);
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  const lines: string[] = [];
  if (api) lines.push(`Affix API listening on ${api.url} (public URL ${config.publicUrl})`);
  if (roles.worker) lines.push(`Affix workers running (${config.worker.concurrency} for Stripe events)`);
  if (database.embedded) lines.push(`Embedded PostgreSQL data in ${config.dataDir}/ (admin token in ${config.dataDir}/admin-token)`);
  if (demo && api) lines.push(walkthrough(api.url, demo));
  process.stdout.write(`${lines.join('\n')}\n`);
}

program
  .command('start', { isDefault: true })
  .description('Run the API and the workers in one process (migrates on start; embedded PostgreSQL when DATABASE_URL is unset)')
  .action(() => runService({ api: true, worker: true }));

program
  .command('api')
  .description('Run the HTTP API only (webhooks are stored and queued; workers process them)')
  .action(() => runService({ api: true, worker: false }));

program
  .command('worker')
  .description('Run the workers only (any number of them may run against one database)')
  .action(() => runService({ api: false, worker: true }));

program
  .command('migrate')
  .description('Apply pending migrations and exit')
  .action(async () => {
    const config = loadConfig();
    const logger = createLogger(config.logLevel);
    const database = await openDatabase(config, logger);
    try {
      await migrateDatabase(database.pool, logger);
      process.stdout.write('Migrations are up to date.\n');
    } finally {
      await database.close();
    }
  });

registerAdminCommands(program);
registerStripeCommands(program);

registerClientCommands(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : EXIT.usage);
  process.stderr.write(`affix: ${(error as Error).message}\n`);
  process.exit(error instanceof CliError ? error.exitCode : EXIT.failure);
});
