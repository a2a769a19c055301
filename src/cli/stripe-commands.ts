// `affix events` (the webhook inbox) and `affix replay` (signed fixture delivery, or requeue).
import { readFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import Stripe from 'stripe';
import { fillFixture, fixtureFiles, fixtureName } from '../platform/fixtures.js';
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
  return `${String(event.id).padStart(6)}  ${String(event.program_id ?? '-').padStart(7)}  ${event.status.padEnd(9)} ${event.type.padEnd(40)}${step}${sale}${reason}`;
}

/** The list's header: events of several programs are told apart by their program column. */
const EVENT_HEADER = `${'event'.padStart(6)}  ${'program'.padStart(7)}  ${'status'.padEnd(9)} type`;

function commissionText(event: any): string {
  if (!event.sale_id) return '-';
  if (event.commission_cents !== null) return `${event.commission_cents} cents (${event.commission_state})`;
  return `none (${event.commission_reason ?? 'reason not recorded'})`;
}

export function registerStripeCommands(program: Command): void {
  const events = serviceOptions(program.command('events'))
    .description('List received Stripe events (the webhook inbox)')
    .addOption(new Option('--status <status>', 'only events in this state').choices(STATUSES))
    .option('--program <id>', 'only this program', positiveInt)
    .option('--stripe-id <id>', 'only events about this Stripe object or event (evt_, cs_, in_, ch_, pi_, du_, re_, cus_, sub_)', stripeId)
    .option('--limit <n>', 'how many, newest first', positiveInt, 50)
    .action(async function (this: Command, flags: { status?: string; program?: number; stripeId?: string; limit: number }) {
      const query = new URLSearchParams({ limit: String(flags.limit) });
      if (flags.status) query.set('status', flags.status);
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
    .description('Sign Stripe event fixtures and POST them to a running service (like `stripe trigger`), or requeue a stored event')
    .option('--event <id>', 'requeue this stored event (number or evt_ id) instead of sending files', eventRef)
    .option('--program <id>', 'program whose endpoint receives the events', positiveInt)
    .option('--secret <whsec>', 'signing secret (default: AFFIX_WEBHOOK_SECRET)')
    .option('--connect', 'send to the Connect endpoint (secret: STRIPE_CONNECT_WEBHOOK_SECRET)')
    .option('--set <name=value>', 'fill a {{placeholder}} of the fixtures (repeatable)', keyValue, {})
    .action(async function (this: Command, path: string | undefined, flags: { event?: string; program?: number; secret?: string; connect?: boolean; set: Record<string, string> }) {
      if (flags.event) {
        const event = await adminCall(this, 'POST', `/webhook-events/${flags.event}/replay`);
        return void process.stdout.write(`Requeued event ${event.id} (${event.type}).\n`);
      }
      if (!path) throw new Error('Give a fixture file or folder, or --event <id>');
      const secret = flags.secret ?? (flags.connect ? process.env.STRIPE_CONNECT_WEBHOOK_SECRET : process.env.AFFIX_WEBHOOK_SECRET);
      if (!secret) throw new Error('No signing secret: pass --secret');
      if (!flags.connect && !flags.program) throw new Error('Pass --program <id> (or --connect)');
      const url = `${baseUrl(this.optsWithGlobals<ServiceOptions>())}/api/v1/webhooks/stripe${flags.connect ? '' : `/${flags.program}`}`;
      const files = await fixtureFiles(path);
      const vars = { run: `replay${Date.now()}`, program_id: String(flags.program ?? ''), ...flags.set };
      let failures = 0;
      for (const [index, file] of files.entries()) {
        const payload = fillFixture(await readFile(file, 'utf8'), vars);
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Stripe-Signature': Stripe.webhooks.generateTestHeaderString({ payload, secret }) },
          body: payload,
        });
        const body = (await response.json().catch(() => ({}))) as { status?: string; duplicate?: boolean; error?: { message?: string } };
        if (!response.ok) failures += 1;
        const outcome = response.ok ? `${body.status}${body.duplicate ? ' (duplicate)' : ''}` : `${response.status} ${body.error?.message ?? ''}`;
        process.stdout.write(`[${index + 1}/${files.length}] ${fixtureName(file)} -> ${outcome}\n`);
      }
      if (failures) throw new Error(`${failures} of ${files.length} deliveries failed`);
    });
}
