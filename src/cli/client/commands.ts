// The client side of `affix`: login, logout, programs, init, status, test.
import { confirmationCode } from '../../core/cli-login.js';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline/promises';
import { Argument, type Command, Option } from 'commander';
import { positiveInt, positiveNumber } from '../arguments.js';
import { defaultApiUrl } from '../http-client.js';
import { CliApi } from './api.js';
import { type Credentials, readCredentials, removeCredentials, requireCredentials, saveCredentials } from './credentials.js';
import { CliError, EXIT } from './exit-codes.js';
import { SALE_SOURCES, type SaleSource, readProjectEnv, writeProjectFiles } from './project-files.js';

interface GlobalFlags {
  apiUrl?: string;
  json?: boolean;
}

const COMMISSION_TYPES = ['percent', 'fixed', 'recurring_percent', 'recurring_fixed'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const out = (text: string): void => {
  process.stdout.write(`${text}\n`);
};

function withClientFlags(command: Command): Command {
  return command.option('--api-url <url>', 'Affix base URL (default: AFFIX_API_URL, the login URL, or http://localhost:3000)').option('--json', 'print JSON');
}

async function apiFor(flags: GlobalFlags): Promise<CliApi> {
  const saved = await readCredentials();
  return new CliApi(flags.apiUrl || process.env.AFFIX_API_URL || saved?.api_url || defaultApiUrl());
}

async function programKey(): Promise<string> {
  const key = process.env.AFFIX_API_KEY || (await readProjectEnv(process.cwd())).AFFIX_API_KEY;
  if (!key) throw new CliError('No API key: set AFFIX_API_KEY or run `affix init` in this folder.', EXIT.auth);
  return key;
}

function openBrowser(url: string): void {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  try {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // No browser here: the URL is printed anyway.
  }
}


interface InitFlags extends GlobalFlags {
  interactive: boolean;
  name?: string;
  domain?: string;
  commissionType?: string;
  commissionRate?: number;
  cookieDuration?: number;
  durationMonths?: number;
  newProgram?: boolean;
  processor: SaleSource;
}

async function askMissing(flags: InitFlags): Promise<Required<Pick<InitFlags, 'name' | 'domain' | 'commissionType' | 'commissionRate' | 'cookieDuration'>> & { durationMonths?: number }> {
  const missing = ['name', 'domain', 'commissionType', 'commissionRate'].filter((key) => flags[key as keyof InitFlags] === undefined);
  if (missing.length && (!flags.interactive || !process.stdin.isTTY)) {
    throw new CliError('Missing --name, --domain, --commission-type or --commission-rate (needed with --no-interactive or without a terminal).', EXIT.usage);
  }
  let answers = { ...flags };
  if (missing.length) {
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    try {
      const ask = async (question: string, fallback?: string) => (await rl.question(fallback ? `${question} [${fallback}]: ` : `${question}: `)).trim() || fallback || '';
      answers = {
        ...answers,
        name: answers.name ?? (await ask('Program name')),
        domain: answers.domain ?? (await ask('Domain (e.g. shop.example.com)')),
        commissionType: answers.commissionType ?? (await ask(`Commission type (${COMMISSION_TYPES.join(', ')})`, 'percent')),
        commissionRate: answers.commissionRate ?? positiveNumber(await ask('Commission rate (percent, or amount for fixed)', '20')),
        cookieDuration: answers.cookieDuration ?? positiveInt(await ask('Cookie duration in days', '60')),
      };
    } finally {
      rl.close();
    }
  }
  return {
    name: answers.name!,
    domain: answers.domain!,
    commissionType: answers.commissionType!,
    commissionRate: answers.commissionRate!,
    cookieDuration: answers.cookieDuration ?? 60,
    durationMonths: answers.durationMonths,
  };
}

export function registerClientCommands(program: Command): void {
  withClientFlags(program.command('login'))
    .description('Sign in: opens the sign-in page, waits, stores the token in ~/.affix/credentials.json')
    .option('--no-browser', 'only print the URL')
    .action(async (flags: GlobalFlags & { browser: boolean }) => {
      const api = await apiFor(flags);
      const session = await api.request<{ state: string; auth_url: string; expires_at: string; poll_url: string }>({ method: 'POST', path: '/api/v1/cli/auth/start' });
      if (!flags.json) {
        out(`Open this page to sign in:\n  ${session.auth_url}\nConfirm that the page shows ${confirmationCode(session.state)}.\nWaiting for sign-in (until ${session.expires_at})...`);
      }
      if (flags.browser) openBrowser(session.auth_url);
      const deadline = Date.parse(session.expires_at);
      for (;;) {
        const poll = await api.request<{ status: string; token?: string; email?: string; advertiser_id?: number }>({
          method: 'GET',
          path: `/api/v1/cli/auth/poll?state=${encodeURIComponent(session.state)}`,
        });
        if (poll.status === 'complete' && poll.token) {
          const credentials: Credentials = { api_url: api.baseUrl, token: poll.token, email: poll.email ?? null, advertiser_id: poll.advertiser_id ?? null, saved_at: new Date().toISOString() };
          await saveCredentials(credentials);
          if (flags.json) out(JSON.stringify({ email: credentials.email, advertiser_id: credentials.advertiser_id, api_url: credentials.api_url }));
          else out(`Signed in as ${credentials.email} (advertiser ${credentials.advertiser_id}).`);
          return;
        }
        if (poll.status === 'expired' || Date.now() > deadline) throw new CliError('The sign-in link expired. Run `affix login` again.', EXIT.auth);
        await sleep(2000);
      }
    });

  withClientFlags(program.command('logout'))
    .description('Revoke the login token on the server and forget it here')
    .action(async (flags: GlobalFlags) => {
      const credentials = await readCredentials();
      let revoked = false;
      if (credentials) {
        // Best effort: an unreachable server must not keep the token on disk.
        const api = new CliApi(credentials.api_url);
        revoked = await api
          .request<{ revoked: boolean }>({ method: 'POST', path: '/api/v1/cli/auth/logout', bearer: credentials.token })
          .then((data) => data.revoked, () => false);
      }
      const removed = await removeCredentials();
      if (flags.json) out(JSON.stringify({ logged_out: removed, revoked }));
      else out(!removed ? 'Not logged in.' : revoked ? 'Logged out; the token is revoked.' : 'Logged out here; the server could not be told (the token expires on its own).');
    });

  withClientFlags(program.command('programs'))
    .description('List your programs')
    .action(async (flags: GlobalFlags) => {
      const credentials = await requireCredentials();
      const api = await apiFor(flags);
      const programs = await api.request<any[]>({ method: 'GET', path: '/api/v1/cli/programs', bearer: credentials.token });
      if (flags.json) return out(JSON.stringify(programs, null, 2));
      if (programs.length === 0) return out('No programs yet. Run `affix init`.');
      for (const p of programs) out(`${String(p.id).padStart(5)}  ${p.name}  ${p.domain}  ${p.commission}  partners: ${p.partners}`);
    });

  /** Clicks from any other site answer 403: say where they are accepted, or that nowhere is set. */
  const originsLine = (origins: string[]) =>
    origins.length
      ? `Browser clicks are accepted from: ${origins.join(', ')} (add staging or other sites in the dashboard's program settings).`
      : "No allowed origins: browser clicks are refused (403) until you add your site's origin in the dashboard's program settings.";

  withClientFlags(program.command('init'))
    .description('Create a program and write .affix/ (AGENTS.md, skills.md, .env, .env.example)')
    .option('--no-interactive', 'never prompt; all four program flags are then required')
    .option('--name <name>')
    .option('--domain <domain>')
    .addOption(new Option('--commission-type <type>').choices(COMMISSION_TYPES))
    .option('--commission-rate <rate>', 'percent, or amount in currency units for fixed types', positiveNumber)
    .option('--cookie-duration <days>', 'attribution window in days (default 60)', positiveInt)
    .option('--duration-months <months>', 'recurring types: months a partner earns per customer', positiveInt)
    .option('--new-program', 'create another program even though this folder already has one')
    .addOption(new Option('--processor <name>', 'how sales are captured: stripe, paddle or lemonsqueezy webhooks, or api (your server reports them); named in AGENTS.md').choices(SALE_SOURCES).default('stripe'))
    .action(async (flags: InitFlags) => {
      const existing = await readProjectEnv(process.cwd());
      if (existing.AFFIX_PROGRAM_ID && !flags.newProgram) {
        throw new CliError(
          `This folder is already set up for program ${existing.AFFIX_PROGRAM_ID} (.affix/.env). Running init again would create a second program; pass --new-program if that is what you want.`,
          EXIT.usage,
        );
      }
      const credentials = await requireCredentials();
      const settings = await askMissing(flags);
      const api = await apiFor(flags);
      const created = await api.request<any>({
        method: 'POST',
        path: '/api/v1/cli/init',
        bearer: credentials.token,
        body: {
          name: settings.name,
          domain: settings.domain,
          commission_type: settings.commissionType,
          commission_rate: settings.commissionRate,
          cookie_duration: settings.cookieDuration,
          ...(settings.durationMonths ? { duration_months: settings.durationMonths } : {}),
          advertiser_id: credentials.advertiser_id,
        },
      });
      const written = await writeProjectFiles(
        process.cwd(),
        {
          programId: created.program_id,
          name: created.name,
          domain: created.domain,
          commission: `${created.commission} (${created.commission_type})`,
          cookieWindowDays: created.cookie_window_days,
          allowedOrigins: created.allowed_origins ?? [],
          apiBaseUrl: api.baseUrl,
          processor: flags.processor,
        },
        created.api_key,
      );
      if (flags.json) return out(JSON.stringify({ program_id: created.program_id, files: written.files, gitignore_updated: written.gitignoreUpdated }));
      out(`Created program ${created.program_id} (${created.name}).`);
      out(`Wrote ${written.files.join(', ')}${written.gitignoreUpdated ? '; added .affix/.env and .affix/.env.* to .gitignore' : ''}.`);
      out(originsLine(created.allowed_origins ?? []));
      out('The API key is in .affix/.env and is shown nowhere else. Give .affix/AGENTS.md to your coding agent.');
    });

  withClientFlags(program.command('status'))
    .description('Program health (uses AFFIX_API_KEY or .affix/.env)')
    .action(async (flags: GlobalFlags) => {
      const api = await apiFor(flags);
      const status = await api.request<any>({ method: 'GET', path: '/api/v1/cli/status', bearer: await programKey() });
      if (flags.json) return out(JSON.stringify(status, null, 2));
      out(`Program ${status.program_id}: ${status.name} (${status.domain})`);
      out(`  Stripe connected: ${status.stripe_connected ? 'yes' : 'no'}`);
      out(`  Last 24 h: ${status.recent_events.clicks_24h} clicks, ${status.recent_events.leads_24h} leads, ${status.recent_events.sales_24h} sales`);
      out(`  Active partners: ${status.active_partners}; pending commissions: ${status.pending_commissions}`);
      out(`  ${originsLine(status.allowed_origins ?? [])}`);
    });

  withClientFlags(program.command('test'))
    .description('Send a test event (test mode: no commission)')
    .addArgument(new Argument('<event>', 'click, lead, sale or chain').choices(['click', 'lead', 'sale', 'chain']))
    .action(async (event: string, flags: GlobalFlags) => {
      const api = await apiFor(flags);
      const body = event === 'chain' ? { type: 'chain' } : { event_type: event };
      const result = await api.request<any>({ method: 'POST', path: '/api/v1/cli/test-event', bearer: await programKey(), body });
      if (flags.json) return out(JSON.stringify(result, null, 2));
      if (event === 'chain') {
        out(`Chain on ?aff=${result.short_code} as ${result.customer_key}: click ${result.verdict.click}, lead ${result.verdict.lead}, sale ${result.verdict.sale}`);
        out(result.attributed ? 'Attributed end to end.' : 'Not attributed: see the failing step above.');
      } else {
        out(`${result.message} (event ${result.event_id})`);
      }
    });
}
