// `affix events` (the webhook inbox, every processor) and `affix replay` (signed fixture delivery, or requeue).
import { readFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { createHmac } from 'node:crypto';
import { fillFixture, fixtureFiles, fixtureName } from '../platform/fixtures.js';
import { toCurrency } from '../core/currency.js';
import { majorUnits } from '../core/money.js';
import { positiveInt } from './arguments.js';
import { adminCall, baseUrl, defaultApiUrl, printJson, type ServiceOptions } from './http-client.js';

const STATUSES = ['queued', 'retrying', 'processed', 'ignored', 'failed', 'parked', 'dead'];

const serviceOptions = (command: Command) =>
  command
    .option('--api-url <url>', 'Affix base URL', defaultApiUrl())
    .option('--admin-token <token>', 'admin token (default: AFFIX_ADMIN_TOKEN, or .affix-data/admin-token)')
    .option('--json', 'print JSON');

function keyValue(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('expected name=value');
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

/** An inbox event number, or a Stripe event id (evt_…). */
function eventRef(value: string): string {
  if (/^\d{1,15}$/.test(value) && Number(value) > 0) return value;
  if (/^evt_[A-Za-z0-9_]{1,200}$/.test(value)) return value;
  throw new InvalidArgumentError('expected an event number or a Stripe event id (evt_…)');
}

function stripeId(value: string): string {
  if (/^[a-z]{2,6}_[A-Za-z0-9_]{1,200}$/.test(value)) return value;
  throw new InvalidArgumentError('expected a Stripe id such as evt_…, cs_…, in_…, ch_…, pi_…, du_…');
}

function eventLine(event: any): string {
  const step = event.attribution_step ? ` step=${event.attribution_step}` : '';
  const sale = event.sale_id ? ` sale=${event.sale_id}` : '';
  const reason = event.reason ? `  ${event.reason}` : '';
  return `${String(event.id).padStart(6)}  ${String(event.program_id ?? '-').padStart(7)}  ${event.processor.padEnd(12)} ${event.status.padEnd(9)} ${event.type.padEnd(40)}${step}${sale}${reason}`;
}

/** The list's header: events of several programs and processors are told apart by their columns. */
const EVENT_HEADER = `${'event'.padStart(6)}  ${'program'.padStart(7)}  ${'processor'.padEnd(12)} ${'status'.padEnd(9)} type`;

const PROCESSORS = ['stripe', 'paddle', 'lemonsqueezy'];
const FINAL = new Set(['processed', 'ignored', 'failed', 'parked', 'dead']);

/** How each processor signs a body (its test helpers' way; the service verifies it as the processor's own). */
const SIGNERS: Record<string, { header: string; secretEnv: string; sign: (payload: string, secret: string) => string | Promise<string> }> = {
  stripe: {
    header: 'Stripe-Signature',
    secretEnv: 'AFFIX_WEBHOOK_SECRET',
    // The SDK is loaded only when a Stripe fixture is signed: every other command starts without it.
    sign: async (payload, secret) => (await import('stripe')).default.webhooks.generateTestHeaderString({ payload, secret }),
  },
  paddle: {
    header: 'Paddle-Signature',
    secretEnv: 'AFFIX_PADDLE_WEBHOOK_SECRET',
    sign: (payload, secret) => {
      const ts = Math.floor(Date.now() / 1000);
      return `ts=${ts};h1=${createHmac('sha256', secret).update(`${ts}:${payload}`).digest('hex')}`;
    },
  },
  lemonsqueezy: { header: 'X-Signature', secretEnv: 'AFFIX_LEMONSQUEEZY_WEBHOOK_SECRET', sign: (payload, secret) => createHmac('sha256', secret).update(payload).digest('hex') },
};

/** The processor a fixture path names (fixtures/paddle/…), else Stripe. */
const processorOfPath = (path: string) => PROCESSORS.find((name) => name !== 'stripe' && path.split(/[\\/]/).includes(name)) ?? 'stripe';

/** In the currency's major unit ("12.50 GBP", "500 JPY"); a service too old to name the currency: its minor units. */
function commissionAmount(minor: number | string, currency: unknown): string {
  const code = toCurrency(currency);
  return code ? `${majorUnits(minor, code)} ${code}` : `${minor} in the currency's minor unit`;
}

function commissionText(event: any): string {
  if (!event.sale_id) return '-';
  if (event.commission_cents !== null) return `${commissionAmount(event.commission_cents, event.commission_currency)} (${event.commission_state})`;
  return `none (${event.commission_reason ?? 'reason not recorded'})`;
}

export function registerStripeCommands(program: Command): void {
  const events = serviceOptions(program.command('events'))
    .description('List received webhook events, every processor (the inbox)')
    .addOption(new Option('--status <status>', 'only events in this state').choices(STATUSES))
    .option('--program <id>', 'only this program', positiveInt)
    .option('--stripe-id <id>', 'only events about this Stripe object or event (evt_, cs_, in_, ch_, pi_, du_, re_, cus_, sub_)', stripeId)
    .addOption(new Option('--processor <name>', 'only events from this processor').choices(PROCESSORS))
    .option('--limit <n>', 'how many, newest first', positiveInt, 50)
    .action(async function (this: Command, flags: { status?: string; program?: number; stripeId?: string; processor?: string; limit: number }) {
      const query = new URLSearchParams({ limit: String(flags.limit) });
      if (flags.status) query.set('status', flags.status);
      if (flags.processor) query.set('processor', flags.processor);
      if (flags.stripeId) query.set('stripe_id', flags.stripeId);
      if (flags.program) query.set('program_id', String(flags.program));
      const rows = await adminCall<any[]>(this, 'GET', `/webhook-events?${query}`);
      if (this.optsWithGlobals<ServiceOptions>().json) return printJson(rows);
      if (rows.length === 0) return void process.stdout.write('No events.\n');
      process.stdout.write(`${[EVENT_HEADER, ...rows.map(eventLine)].join('\n')}\n`);
    });

  serviceOptions(events.command('show <id>'))
    .description('What happened to one event (by number or evt_ id), which attribution step matched, and its commission')
    .action(async function (this: Command, id: string) {
      const event = await adminCall(this, 'GET', `/webhook-events/${eventRef(id)}`);
      if (this.optsWithGlobals<ServiceOptions>().json) return printJson(event);
      const lines = [
        `event ${event.id} (${event.stripe_event_id}) ${event.type}`,
        `status:           ${event.status}${event.reason ? ` (${event.reason})` : ''}`,
        `program:          ${event.program_id ?? '-'}${event.account ? `, account ${event.account}` : ''} via ${event.endpoint} endpoint`,
        `attribution step: ${event.attribution_step ?? '-'}`,
        `sale:             ${event.sale_id ?? '-'}`,
        `commission:       ${commissionText(event)}`,
        `attempts:         ${event.attempts}`,
        `received:         ${event.received_at}; updated ${event.updated_at}`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });

  serviceOptions(program.command('replay [path]'))
    .description('Sign event fixtures (Stripe, Paddle, Lemon Squeezy) and POST them to a running service, then print what each did; or requeue a stored event')
    .option('--event <id>', 'requeue this stored event (number or evt_ id) instead of sending files', eventRef)
    .option('--program <id>', 'program whose endpoint receives the events', positiveInt)
    .addOption(new Option('--processor <name>', 'whose events the files are (default: the folder name, fixtures/paddle → paddle; else stripe)').choices(PROCESSORS))
    .option('--secret <secret>', 'signing secret (default: AFFIX_WEBHOOK_SECRET, AFFIX_PADDLE_WEBHOOK_SECRET or AFFIX_LEMONSQUEEZY_WEBHOOK_SECRET)')
    .option('--connect', 'send to the Stripe Connect endpoint (secret: STRIPE_CONNECT_WEBHOOK_SECRET)')
    .option('--no-wait', 'do not wait for the workers; print only what was stored')
    .option('--set <name=value>', 'fill a {{placeholder}} of the fixtures (repeatable)', keyValue, {})
    .action(async function (this: Command, path: string | undefined, flags: { event?: string; program?: number; processor?: string; secret?: string; connect?: boolean; wait: boolean; set: Record<string, string> }) {
      if (flags.event) {
        const event = await adminCall(this, 'POST', `/webhook-events/${flags.event}/replay`);
        return void process.stdout.write(`Requeued event ${event.id} (${event.type}).\n`);
      }
      if (!path) throw new Error('Give a fixture file or folder, or --event <id>');
      const processor = flags.processor ?? processorOfPath(path);
      const signer = SIGNERS[processor]!;
      const secret = flags.secret ?? (flags.connect ? process.env.STRIPE_CONNECT_WEBHOOK_SECRET : process.env[signer.secretEnv]);
      if (!secret) throw new Error('No signing secret: pass --secret');
      if (!flags.connect && !flags.program) throw new Error('Pass --program <id> (or --connect)');
      if (flags.connect && processor !== 'stripe') throw new Error('--connect is for Stripe events only');
      const url = `${baseUrl(this.optsWithGlobals<ServiceOptions>())}/api/v1/webhooks/${processor}${flags.connect ? '' : `/${flags.program}`}`;
      const files = await fixtureFiles(path);
      const vars = { run: `replay${Date.now()}`, program_id: String(flags.program ?? ''), ...flags.set };
      let failures = 0;
      const stored: { name: string; id: number }[] = [];
      for (const [index, file] of files.entries()) {
        const payload = fillFixture(await readFile(file, 'utf8'), vars);
        const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', [signer.header]: await signer.sign(payload, secret) }, body: payload });
        const body = (await response.json().catch(() => ({}))) as { id?: number; status?: string; duplicate?: boolean; error?: { message?: string } };
        if (!response.ok) failures += 1;
        else if (body.id) stored.push({ name: fixtureName(file), id: body.id });
        const outcome = response.ok ? `${body.status}${body.duplicate ? ' (duplicate)' : ''}` : `${response.status} ${body.error?.message ?? ''}`;
        process.stdout.write(`[${index + 1}/${files.length}] ${fixtureName(file)} -> ${outcome}\n`);
      }
      if (flags.wait && stored.length) await printOutcomes(this, stored);
      if (failures) throw new Error(`${failures} of ${files.length} deliveries failed`);
    });
}

/** Waits (up to a minute) for the workers, then prints what each stored event did: its sale and commission. */
async function printOutcomes(command: Command, stored: { name: string; id: number }[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  let events: any[] = [];
  while (Date.now() < deadline) {
    events = await Promise.all(stored.map((s) => adminCall<any>(command, 'GET', `/webhook-events/${s.id}`)));
    if (events.every((e) => FINAL.has(e.status))) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  process.stdout.write('What each event did:\n');
  for (const [i, event] of events.entries()) {
    const step = event.attribution_step ? ` by ${event.attribution_step}` : '';
    const sale = event.sale_id ? ` sale ${event.sale_id}${step}, commission ${commissionText(event)}` : '';
    process.stdout.write(`  ${stored[i]!.name}: ${event.status}${sale}${event.reason ? ` (${event.reason})` : ''}\n`);
  }
}
