// `affix admin ...`: thin client of the admin API (the same door as any other admin tool).
import { type Command, InvalidArgumentError } from 'commander';
import { positiveInt, positiveNumber } from './arguments.js';
import { adminCall, defaultApiUrl, printJson } from './http-client.js';
import { registerMoneyCommands } from './money-commands.js';
import { registerDiscountCommands } from './discount-commands.js';
import { registerRewardRuleCommands } from './reward-rule-commands.js';
import { registerPartnerCommands } from './partner-commands.js';

async function call(command: Command, method: string, path: string, body?: unknown): Promise<void> {
  printJson(await adminCall(command, method, path, body));
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
  acceptAllCurrencies?: boolean;
  contractCurrenciesOnly?: boolean;
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
  accept_all_currencies: flags.acceptAllCurrencies ? true : flags.contractCurrenciesOnly ? false : undefined,
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
    .option('--duration-months <months>', 'recurring commissions stop after this many months', positiveInt)
    .option('--accept-all-currencies', 'take sales in every ISO 4217 currency (GBP, JPY, KWD...), each in its own minor unit')
    .option('--contract-currencies-only', 'take USD, EUR and VND only; others are refused with 422 (the default)');
}

export function registerAdminCommands(program: Command): void {
  const admin = program
    .command('admin')
    .description('Manage accounts, programs, partners, links and keys through the admin API')
    .option('--api-url <url>', 'Affix base URL', defaultApiUrl())
    .option('--admin-token <token>', 'admin token (default: AFFIX_ADMIN_TOKEN, or .affix-data/admin-token)');

  const account = admin.command('account').description('Advertiser accounts');
  account
    .command('create')
    .requiredOption('--email <email>')
    .option('--name <name>')
    .option('--password <password>', 'for the local sign-in page of `affix login` (8+ characters)')
    .action(function (this: Command, flags: { email: string; name?: string; password?: string }) {
      return call(this, 'POST', '/accounts', { email: flags.email, name: flags.name, password: flags.password });
    });
  account
    .command('password <id>')
    .requiredOption('--password <password>', '8+ characters')
    .action(function (this: Command, id: string, flags: { password: string }) {
      return call(this, 'PATCH', `/accounts/${positiveInt(id)}`, { password: flags.password });
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
  programs
    .command('stripe <id>')
    .description('Connect Stripe: the signing secret of the per-program endpoint, the Connect account id')
    .option('--webhook-secret <whsec>', 'signing secret of /api/v1/webhooks/stripe/<id> (stored encrypted)')
    .option('--account <acct>', 'connected account id, for the Connect endpoint')
    .option('--test-commissions', 'let livemode=false events earn commissions')
    .option('--live-commissions-only', 'livemode=false events are test events (default)')
    .action(function (this: Command, id: string, flags: { webhookSecret?: string; account?: string; testCommissions?: boolean; liveCommissionsOnly?: boolean }) {
      const livemodeOnly = flags.testCommissions ? false : flags.liveCommissionsOnly ? true : undefined;
      return call(this, 'PATCH', `/programs/${positiveInt(id)}/stripe`, {
        webhook_secret: flags.webhookSecret,
        account_id: flags.account,
        livemode_only_commissions: livemodeOnly,
      });
    });
  programs
    .command('processor <id> <processor>')
    .description('Connect Paddle or Lemon Squeezy: the signing secret of /api/v1/webhooks/<processor>/<id>')
    .option('--webhook-secret <secret>', "the endpoint's signing secret (stored encrypted)")
    .option('--sandbox', "Paddle's sandbox: its payments are test payments")
    .option('--live', 'the live account (default)')
    .action(function (this: Command, id: string, processor: string, flags: { webhookSecret?: string; sandbox?: boolean; live?: boolean }) {
      if (processor !== 'paddle' && processor !== 'lemonsqueezy') throw new InvalidArgumentError('processor: paddle or lemonsqueezy');
      return call(this, 'PATCH', `/programs/${positiveInt(id)}/processors/${processor}`, {
        webhook_secret: flags.webhookSecret,
        sandbox: flags.sandbox ? true : flags.live ? false : undefined,
      });
    });
  programs.command('show <id>').action(function (this: Command, id: string) {
    return call(this, 'GET', `/programs/${positiveInt(id)}`);
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

  registerMoneyCommands(admin);
  registerDiscountCommands(admin);
  registerRewardRuleCommands(admin);
  registerPartnerCommands(admin);
}
