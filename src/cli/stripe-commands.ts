// `affix events` (the webhook inbox) and `affix replay` (signed fixture delivery, or requeue).
import { readFile } from 'node:fs/promises';
import { type Command, InvalidArgumentError, Option } from 'commander';
import Stripe from 'stripe';
import { fillFixture, fixtureFiles, fixtureName } from '../fixtures.js';
import { positiveInt } from './admin-commands.js';
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

function eventLine(event: any): string {
  const step = event.attribution_step ? ` step=${event.attribution_step}` : '';
  const sale = event.sale_id ? ` sale=${event.sale_id}` : '';
  const reason = event.reason ? `  ${event.reason}` : '';
  return `${String(event.id).padStart(6)}  ${event.status.padEnd(9)} ${event.type.padEnd(40)}${step}${sale}${reason}`;
}

export function registerStripeCommands(program: Command): void {
  const events = serviceOptions(program.command('events'))
    .description('List received Stripe events (the webhook inbox)')
    .addOption(new Option('--status <status>', 'only events in this state').choices(STATUSES))
    .option('--program <id>', 'only this program', positiveInt)
    .option('--limit <n>', 'how many, newest first', positiveInt, 50)
    .action(async function (this: Command, flags: { status?: string; program?: number; limit: number }) {
      const query = new URLSearchParams({ limit: String(flags.limit) });
      if (flags.status) query.set('status', flags.status);
      if (flags.program) query.set('program_id', String(flags.program));
      const rows = await adminCall<any[]>(this, 'GET', `/webhook-events?${query}`);
      if (this.optsWithGlobals<ServiceOptions>().json) return printJson(rows);
      if (rows.length === 0) return void process.stdout.write('No events.\n');
      process.stdout.write(`${rows.map(eventLine).join('\n')}\n`);
    });

  serviceOptions(events.command('show <id>'))
    .description('What happened to one event, and which attribution step matched')
    .action(async function (this: Command, id: string) {
      const event = await adminCall(this, 'GET', `/webhook-events/${positiveInt(id)}`);
      if (this.optsWithGlobals<ServiceOptions>().json) return printJson(event);
      const lines = [
        `event ${event.id} (${event.stripe_event_id}) ${event.type}`,
        `status:           ${event.status}${event.reason ? ` (${event.reason})` : ''}`,
        `program:          ${event.program_id ?? '-'}${event.account ? `, account ${event.account}` : ''} via ${event.endpoint} endpoint`,
        `attribution step: ${event.attribution_step ?? '-'}`,
        `sale:             ${event.sale_id ?? '-'}`,
        `attempts:         ${event.attempts}`,
        `received:         ${event.received_at}; updated ${event.updated_at}`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });

  serviceOptions(program.command('replay [path]'))
    .description('Sign Stripe event fixtures and POST them to a running service (like `stripe trigger`), or requeue a stored event')
    .option('--event <id>', 'requeue this stored event instead of sending files', positiveInt)
    .option('--program <id>', 'program whose endpoint receives the events', positiveInt)
    .option('--secret <whsec>', 'signing secret (default: AFFIX_WEBHOOK_SECRET)')
    .option('--connect', 'send to the Connect endpoint (secret: STRIPE_CONNECT_WEBHOOK_SECRET)')
    .option('--set <name=value>', 'fill a {{placeholder}} of the fixtures (repeatable)', keyValue, {})
    .action(async function (this: Command, path: string | undefined, flags: { event?: number; program?: number; secret?: string; connect?: boolean; set: Record<string, string> }) {
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
