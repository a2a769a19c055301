// `affix admin payouts ...` and `affix admin webhooks ...`: thin clients of the admin API
// (docs/payouts.md, docs/webhooks.md).
import type { Command } from 'commander';
import { minimumFlag, positiveInt } from './arguments.js';
import { adminCall, adminText, printJson } from './http-client.js';
import { registerPayoutProviderCommands } from './payout-provider-commands.js';

const call = async (command: Command, method: string, path: string, body?: unknown) => printJson(await adminCall(command, method, path, body));
const programFlag = (command: Command) => command.requiredOption('--program <id>', 'program id', positiveInt);
type P = { program: number };


export function registerMoneyCommands(admin: Command): void {
  const payouts = admin.command('payouts').description('What partners are owed: approvals, payout runs, exports, payments');
  programFlag(payouts.command('balances').description('pending, approved and paid per partner and currency')).action(function (this: Command, f: P) {
    return call(this, 'GET', `/programs/${f.program}/balances`);
  });
  programFlag(payouts.command('commissions').description('commissions, newest first'))
    .option('--state <state>', 'pending, held, approved, in_payout, paid, rejected, reversed, moved or test')
    .option('--stage <state>', 'the same as --state (its older name)')
    .option('--page <n>', 'page of 50', positiveInt)
    .action(function (this: Command, f: P & { state?: string; stage?: string; page?: number }) {
      const state = f.state ?? f.stage;
      const query = new URLSearchParams({ ...(state ? { state } : {}), ...(f.page ? { page: String(f.page) } : {}) });
      return call(this, 'GET', `/programs/${f.program}/commissions?${query}`);
    });
  const verbs = {
    approve: 'approve now (also within the hold period)',
    unapprove: 'take an approval back',
    release: 'a held commission is fine: pending again',
    reject: 'a held commission is fraud: never owed',
  } as const;
  for (const [verb, description] of Object.entries(verbs)) {
    const command = programFlag(payouts.command(`${verb} <commissionId>`).description(description));
    // Approving needs no reason (one given is kept); taking back, releasing and rejecting do.
    (verb === 'approve' ? command.option('--reason <text>', 'kept in the ledger') : command.requiredOption('--reason <text>', 'kept in the ledger'))
      .action(function (this: Command, id: string, f: P & { reason?: string }) {
        return call(this, 'POST', `/programs/${f.program}/commissions/${positiveInt(id)}/${verb}`, f.reason === undefined ? {} : { reason: f.reason });
      });
  }
  programFlag(payouts.command('settings').description('show or change the hold period and the minimum payout per currency'))
    .option('--hold-days <days>', 'days a commission stays pending (default 30)', (v) => Number(v))
    .option('--minimum <CUR=cents...>', 'smallest payout in one currency, in its smallest unit (repeat per currency: --minimum USD=5000 --minimum JPY=5000 --minimum KWD=5000)', minimumFlag, {})
    .action(async function (this: Command, f: P & { holdDays?: number; minimum: Record<string, number> }) {
      if (f.holdDays === undefined && Object.keys(f.minimum).length === 0) return call(this, 'GET', `/programs/${f.program}/payout-settings`);
      return call(this, 'PATCH', `/programs/${f.program}/payout-settings`, { hold_days: f.holdDays, payout_minimums_cents: f.minimum });
    });
  programFlag(payouts.command('details <partnerId>').description('how a partner is paid'))
    .requiredOption('--method <method>', 'paypal, wise, bank_transfer or stripe')
    .requiredOption('--to <reference>', 'PayPal or Wise email, IBAN, or Stripe account id')
    .option('--currency <currency>', 'an ISO 4217 code: USD, EUR, GBP, JPY...')
    .action(function (this: Command, id: string, f: P & { method: string; to: string; currency?: string }) {
      return call(this, 'PATCH', `/programs/${f.program}/partners/${positiveInt(id)}/payout-details`, { payout_method: f.method, payout_reference: f.to, payout_currency: f.currency });
    });
  programFlag(payouts.command('run').description('a new batch: every approved balance at or above the minimum')).action(function (this: Command, f: P) {
    return call(this, 'POST', `/programs/${f.program}/payouts/run`);
  });
  programFlag(payouts.command('list')).action(function (this: Command, f: P) {
    return call(this, 'GET', `/programs/${f.program}/payouts`);
  });
  programFlag(payouts.command('export <batchId>').description('CSV on standard output'))
    .option('--format <format>', 'generic, paypal or wise', 'generic')
    .action(async function (this: Command, id: string, f: P & { format: string }) {
      process.stdout.write(await adminText(this, `/programs/${f.program}/payout-batches/${positiveInt(id)}/export?format=${encodeURIComponent(f.format)}`));
    });
  programFlag(payouts.command('mark-paid <payoutId>'))
    .requiredOption('--reference <ref>', 'the transfer or batch id of the payment')
    .action(function (this: Command, id: string, f: P & { reference: string }) {
      return call(this, 'POST', `/programs/${f.program}/payouts/${positiveInt(id)}/paid`, { reference: f.reference });
    });
  programFlag(payouts.command('pay-stripe <payoutId>').description('pay as a Stripe transfer to the partner’s connected account, then mark paid')).action(function (this: Command, id: string, f: P) {
    return call(this, 'POST', `/programs/${f.program}/payouts/${positiveInt(id)}/stripe-transfer`);
  });
  registerPayoutProviderCommands(payouts);
  programFlag(payouts.command('cancel <payoutId>').description('not paid after all: the balance is payable again')).action(function (this: Command, id: string, f: P) {
    return call(this, 'POST', `/programs/${f.program}/payouts/${positiveInt(id)}/cancel`);
  });

  const promo = admin.command('promo').description('Discount codes that attribute sales to partners');
  programFlag(promo.command('add').description('map a code, Stripe promotion code or coupon to a partner'))
    .requiredOption('--partner <id>', 'partner id', positiveInt)
    .option('--code <code>', 'the code customers type')
    .option('--stripe-promotion-code <promo_id>')
    .option('--stripe-coupon <coupon_id>')
    .action(function (this: Command, f: P & { partner: number; code?: string; stripePromotionCode?: string; stripeCoupon?: string }) {
      return call(this, 'POST', `/programs/${f.program}/promo-codes`, {
        partner_id: f.partner, code: f.code, stripe_promotion_code_id: f.stripePromotionCode, stripe_coupon_id: f.stripeCoupon,
      });
    });
  programFlag(promo.command('list')).action(function (this: Command, f: P) {
    return call(this, 'GET', `/programs/${f.program}/promo-codes`);
  });
  for (const [verb, active] of [['activate', true], ['deactivate', false]] as const) {
    programFlag(promo.command(`${verb} <promoCodeId>`)).action(function (this: Command, id: string, f: P) {
      return call(this, 'PATCH', `/programs/${f.program}/promo-codes/${positiveInt(id)}`, { active });
    });
  }

  const hooks = admin.command('webhooks').description('Signed webhooks to your own systems');
  programFlag(hooks.command('add').description('register an endpoint; prints its signing secret once'))
    .requiredOption('--url <url>')
    .requiredOption('--events <types...>', 'e.g. sale.created commission.approved payout.paid')
    .action(function (this: Command, f: P & { url: string; events: string[] }) {
      return call(this, 'POST', `/programs/${f.program}/webhook-endpoints`, { url: f.url, event_types: f.events });
    });
  programFlag(hooks.command('list')).action(function (this: Command, f: P) {
    return call(this, 'GET', `/programs/${f.program}/webhook-endpoints`);
  });
  for (const [verb, enabled] of [['enable', true], ['disable', false]] as const) {
    programFlag(hooks.command(`${verb} <endpointId>`)).action(function (this: Command, id: string, f: P) {
      return call(this, 'PATCH', `/programs/${f.program}/webhook-endpoints/${positiveInt(id)}`, { enabled });
    });
  }
  programFlag(hooks.command('rotate-secret <endpointId>').description('new secret; the old one signs too for 24 hours')).action(function (this: Command, id: string, f: P) {
    return call(this, 'POST', `/programs/${f.program}/webhook-endpoints/${positiveInt(id)}/rotate-secret`);
  });
  programFlag(hooks.command('deliveries <endpointId>').description('the delivery log')).action(function (this: Command, id: string, f: P) {
    return call(this, 'GET', `/programs/${f.program}/webhook-endpoints/${positiveInt(id)}/deliveries`);
  });
  programFlag(hooks.command('replay <deliveryId>').description('send the same message (same webhook-id) again')).action(function (this: Command, id: string, f: P) {
    return call(this, 'POST', `/programs/${f.program}/webhook-deliveries/${positiveInt(id)}/replay`);
  });
  programFlag(hooks.command('remove <endpointId>')).action(async function (this: Command, id: string, f: P) {
    await adminCall(this, 'DELETE', `/programs/${f.program}/webhook-endpoints/${positiveInt(id)}`);
  });
}
