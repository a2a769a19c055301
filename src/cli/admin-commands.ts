// `affix admin ...`: thin client of the admin API (the same door as any other admin tool).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';

interface AdminOptions {
  apiUrl: string;
  adminToken?: string;
}

const positiveInt = (value: string): number => {
  if (!/^\d+$/.test(value) || Number(value) <= 0) throw new InvalidArgumentError('expected a positive integer');
  return Number(value);
};
const positiveNumber = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new InvalidArgumentError('expected a positive number');
  return parsed;
};

function adminToken(options: AdminOptions): string {
  if (options.adminToken) return options.adminToken;
  if (process.env.AFFIX_ADMIN_TOKEN) return process.env.AFFIX_ADMIN_TOKEN;
  const file = join(process.env.AFFIX_DATA_DIR ?? '.affix-data', 'admin-token');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  throw new Error('No admin token: pass --admin-token or set AFFIX_ADMIN_TOKEN');
}

async function call(command: Command, method: string, path: string, body?: unknown): Promise<void> {
  const options = command.optsWithGlobals<AdminOptions>();
  const response = await fetch(`${options.apiUrl.replace(/\/+$/, '')}/api/v1/admin${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${adminToken(options)}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const payload = (await response.json().catch(() => null)) as { data?: unknown; error?: { message?: string } } | null;
  if (!response.ok) {
    throw new Error(`${response.status}: ${payload?.error?.message ?? response.statusText}`);
  }
  process.stdout.write(`${JSON.stringify(payload?.data, null, 2)}\n`);
}

type ProgramFlags = {
  name?: string;
  domain?: string;
  commissionType?: string;
  commissionRate?: number;
  windowDays?: number;
  leadAuth?: string;
  origin?: string[];
  durationMonths?: number;
};

const programBody = (flags: ProgramFlags) => ({
  name: flags.name,
  domain: flags.domain,
  commission_type: flags.commissionType,
  commission_rate: flags.commissionRate,
  attribution_window_days: flags.windowDays,
  lead_auth: flags.leadAuth,
  allowed_origins: flags.origin,
  duration_months: flags.durationMonths,
});

function programOptions(command: Command): Command {
  return command
    .option('--name <name>')
    .option('--domain <domain>')
    .option('--commission-type <type>', 'percent, fixed, recurring_percent or recurring_fixed')
    .option('--commission-rate <rate>', 'percent, or an amount in the currency unit for fixed types', positiveNumber)
    .option('--window-days <days>', 'attribution window in days (default 60)', positiveInt)
    .option('--lead-auth <mode>', 'browser_allowed or server_required')
    .option('--origin <origin...>', 'allowed browser origins, e.g. https://www.example.com')
    .option('--duration-months <months>', 'recurring commissions stop after this many months', positiveInt);
}

export function registerAdminCommands(program: Command): void {
  const admin = program
    .command('admin')
    .description('Manage accounts, programs, partners, links and keys through the admin API')
    .option('--api-url <url>', 'Affix base URL', process.env.AFFIX_API_URL ?? 'http://localhost:3000')
    .option('--admin-token <token>', 'admin token (default: AFFIX_ADMIN_TOKEN, or .affix-data/admin-token)');

  const account = admin.command('account').description('Advertiser accounts');
  account
    .command('create')
    .requiredOption('--email <email>')
    .option('--name <name>')
    .action(function (this: Command, flags: { email: string; name?: string }) {
      return call(this, 'POST', '/accounts', { email: flags.email, name: flags.name });
    });
  account.command('suspend <id>').action(function (this: Command, id: string) {
    return call(this, 'PATCH', `/accounts/${positiveInt(id)}`, { suspended: true });
  });
  account.command('unsuspend <id>').action(function (this: Command, id: string) {
    return call(this, 'PATCH', `/accounts/${positiveInt(id)}`, { suspended: false });
  });

  const programs = admin.command('program').description('Programs');
  programOptions(programs.command('create').requiredOption('--account <id>', 'owning account id', positiveInt)).action(
    function (this: Command, flags: ProgramFlags & { account: number }) {
      return call(this, 'POST', '/programs', { account_id: flags.account, ...programBody(flags) });
    },
  );
  programOptions(programs.command('update <id>')).action(function (this: Command, id: string, flags: ProgramFlags) {
    return call(this, 'PATCH', `/programs/${positiveInt(id)}`, programBody(flags));
  });
  programs.command('show <id>').action(function (this: Command, id: string) {
    return call(this, 'GET', `/programs/${positiveInt(id)}`);
  });

  admin
    .command('partner')
    .description('Partners')
    .command('create')
    .requiredOption('--program <id>', 'program id', positiveInt)
    .requiredOption('--name <name>')
    .option('--email <email>')
    .action(function (this: Command, flags: { program: number; name: string; email?: string }) {
      return call(this, 'POST', `/programs/${flags.program}/partners`, { name: flags.name, email: flags.email });
    });

  const link = admin.command('link').description('Referral links');
  link
    .command('create')
    .requiredOption('--program <id>', 'program id', positiveInt)
    .requiredOption('--partner <id>', 'partner id', positiveInt)
    .option('--code <code>', 'the aff value (default: random)')
    .action(function (this: Command, flags: { program: number; partner: number; code?: string }) {
      return call(this, 'POST', `/programs/${flags.program}/links`, { partner_id: flags.partner, short_link: flags.code });
    });
  link.command('enable <id>').action(function (this: Command, id: string) {
    return call(this, 'PATCH', `/links/${positiveInt(id)}`, { enabled: true });
  });
  link.command('disable <id>').action(function (this: Command, id: string) {
    return call(this, 'PATCH', `/links/${positiveInt(id)}`, { enabled: false });
  });

  const key = admin.command('key').description('Program API keys');
  key
    .command('create')
    .requiredOption('--program <id>', 'program id', positiveInt)
    .action(function (this: Command, flags: { program: number }) {
      return call(this, 'POST', `/programs/${flags.program}/keys`);
    });
  key
    .command('list')
    .requiredOption('--program <id>', 'program id', positiveInt)
    .action(function (this: Command, flags: { program: number }) {
      return call(this, 'GET', `/programs/${flags.program}/keys`);
    });
  key.command('regenerate <keyId>').action(function (this: Command, keyId: string) {
    return call(this, 'POST', `/keys/${positiveInt(keyId)}/regenerate`);
  });
  key
    .command('rotate <keyId>')
    .requiredOption('--by <time>', 'deadline, ISO 8601 with offset')
    .action(function (this: Command, keyId: string, flags: { by: string }) {
      return call(this, 'POST', `/keys/${positiveInt(keyId)}/rotation`, { rotate_by: flags.by });
    });
}
