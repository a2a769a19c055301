#!/usr/bin/env node
// The `affix` command: run the service, migrate, and manage programs through the admin API.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { describeFailure, startOwningSignals, stopOnUnexpectedRejections } from '../start/lifecycle.js';
import type { Roles } from '../start/service.js';
import { registerAdminCommands } from './admin-commands.js';
import { registerStripeCommands } from './stripe-commands.js';
import { registerClientCommands } from './client/commands.js';
import { CliError, EXIT } from './client/exit-codes.js';

const program = new Command();
program.name('affix').description('Affix: affiliate and partner attribution service').showHelpAfterError();
// Usage errors exit 2; API errors carry their own code (client/exit-codes.ts). Set before any
// subcommand exists, so every subcommand inherits it.
program.exitOverride();

// The service, the database, the demo and even the settings' schema and the logger (zod and pino,
// two thirds of what a client command loaded) are loaded only by the commands that run them, so a
// client command (admin, events, replay, partners…) starts without the server's modules.
async function runService(roles: Roles): Promise<void> {
  const [{ startService }, { walkthrough }, { loadConfig }, { createLogger }] = await Promise.all([
    import('../start/service.js'),
    import('../app/programs/demo.js'),
    import('../platform/config.js'),
    import('../platform/logger.js'),
  ]);
  const initial = loadConfig();
  const logger = createLogger(initial.logLevel);
  const service = await startOwningSignals(() => startService(initial, logger, roles));
  stopOnUnexpectedRejections(service.lifecycle, logger);
  const { api, config, demo } = service;
  const lines: string[] = [];
  if (api) lines.push(`Affix API listening on ${api.url} (public URL ${api.publicUrl})`, `Dashboard: ${api.url}/dashboard`);
  if (roles.worker) lines.push(`Affix workers running (${config.worker.concurrency} for Stripe events)`);
  if (service.embedded) lines.push(`Embedded PostgreSQL data in ${config.dataDir}/ (admin token in ${config.dataDir}/admin-token)`);
  if (demo && api) {
    // The demo's key and password are printed on the first start only; later starts name the file.
    const saved = join(config.dataDir, 'demo.txt');
    if (demo.created) {
      const text = walkthrough(api.url, demo);
      await writeFile(saved, `${text}\n`, { mode: 0o600 });
      lines.push(text);
    } else {
      lines.push(`Demo program ${demo.programId}: its API key, sign-in and curl walk-through are in ${saved} (printed on the first start only)`);
    }
  }
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
    const [{ migrateDatabase, openDatabase }, { loadConfig }, { createLogger }] = await Promise.all([
      import('../start/database.js'),
      import('../platform/config.js'),
      import('../platform/logger.js'),
    ]);
    const config = loadConfig();
    const logger = createLogger(config.logLevel);
    const database = await openDatabase(config, logger);
    try {
      await migrateDatabase(database.direct ?? database.pool, logger);
      process.stdout.write('Migrations are up to date.\n');
    } finally {
      await database.endPool();
      await database.stopServer();
    }
  });

registerAdminCommands(program);
registerStripeCommands(program);

registerClientCommands(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : EXIT.usage);
  process.stderr.write(`affix: ${describeFailure(error)}\n`);
  process.exit(error instanceof CliError ? error.exitCode : EXIT.failure);
});
