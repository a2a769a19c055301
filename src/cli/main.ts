#!/usr/bin/env node
// The `affix` command: run the service, migrate, and manage programs through the admin API.
import { Command } from 'commander';
import { loadConfig } from '../config.js';
import { ensureDemo, walkthrough } from '../demo.js';
import { createLogger } from '../logger.js';
import { migrateDatabase, openDatabase, resolveAdminToken, startApi } from '../server.js';
import { registerAdminCommands } from './admin-commands.js';

const program = new Command();
program.name('affix').description('Affix: affiliate and partner attribution service').showHelpAfterError();

async function runService(): Promise<void> {
  const config0 = loadConfig();
  const logger = createLogger(config0.logLevel);
  const database = await openDatabase(config0, logger);
  const config = Object.freeze({ ...config0, adminToken: await resolveAdminToken(config0, database.embedded) });
  await migrateDatabase(database.pool, logger);
  const demo = config.seedDemo ? await ensureDemo(database.pool, config) : null;
  const api = await startApi(config, database.pool, logger);
  const stop = async (signal: string) => {
    logger.info({ signal }, 'shutting down');
    await api.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  const lines = [`Affix API listening on ${api.url} (public URL ${config.publicUrl})`];
  if (database.embedded) lines.push(`Embedded PostgreSQL data in ${config.dataDir}/ (admin token in ${config.dataDir}/admin-token)`);
  if (demo) lines.push(walkthrough(api.url, demo));
  process.stdout.write(`${lines.join('\n')}\n`);
}

program
  .command('start', { isDefault: true })
  .description('Run the service (API; migrates on start; embedded PostgreSQL when DATABASE_URL is unset)')
  .action(runService);

program
  .command('api')
  .description('Run the HTTP API only (same as start until workers exist)')
  .action(runService);

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

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`affix: ${(error as Error).message}\n`);
  process.exit(1);
});
