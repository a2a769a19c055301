// Builds fixtures/stripe/*.json (Stripe event payloads) from the raw Stripe objects in
// ../shared/stripe-reference. Placeholders {{name}} are filled at use (tests, `affix replay`).
// Run: npx tsx scripts/build-stripe-fixtures.ts [reference-folder]
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const referenceDir = process.argv[2] ?? join(import.meta.dirname, '../../shared/stripe-reference');
const outDir = join(import.meta.dirname, '../fixtures/stripe');
const ref = (name: string) => JSON.parse(readFileSync(join(referenceDir, name), 'utf8'));

const HEAD = 'HEAD-f6c2a48';
const session = ref(`checkout.session.fixture.${HEAD}.json`);
const invoiceModern = ref(`invoice.fixture.${HEAD}.json`);
const invoiceLegacy = ref('invoice.fixture.acacia-b819eed.json');
const charge = ref(`charge.fixture.${HEAD}.json`);
const chargeLegacy = ref('charge.fixture.acacia-b819eed.json');
const refund = ref(`refund.fixture.${HEAD}.json`);
const dispute = ref(`dispute.fixture.${HEAD}.json`);
const envelope = ref(`event.fixture.${HEAD}.json`);
const invoicePayment = ref(`invoice_payment.fixture.${HEAD}.json`);

const metadata = { affix_click_id: '{{click_id}}', affix_customer_key: '{{customer_key}}', program_id: '{{program_id}}' };

function event(name: string, type: string, object: unknown, extra: Record<string, unknown> = {}) {
  const body = {
    ...envelope,
    id: `evt_{{run}}_${name.replace(/[^a-z0-9]/gi, '_')}`,
    api_version: extra.api_version ?? '2025-03-31.basil',
    created: '{{created}}',
    livemode: true,
    type,
    data: { object },
    ...extra,
  };
  writeFileSync(join(outDir, `${name}.json`), `${JSON.stringify(body, null, 2)}\n`);
}

const paidSession = {
  ...session,
  id: 'cs_{{run}}_payment',
  mode: 'payment',
  payment_status: 'paid',
  status: 'complete',
  amount_subtotal: 4900,
  amount_total: 4900,
  currency: 'usd',
  customer: 'cus_{{run}}',
  customer_details: { ...session.customer_details, email: '{{email}}' },
  payment_intent: 'pi_{{run}}_payment',
  metadata,
  livemode: true,
};
event('checkout.session.completed.payment', 'checkout.session.completed', paidSession);
event('checkout.session.completed.guest', 'checkout.session.completed', {
  ...paidSession,
  id: 'cs_{{run}}_guest',
  customer: null,
  metadata: {},
  customer_details: { ...session.customer_details, email: '{{email}}' },
  payment_intent: 'pi_{{run}}_guest',
});
event('checkout.session.completed.async-unpaid', 'checkout.session.completed', {
  ...paidSession,
  id: 'cs_{{run}}_async',
  payment_status: 'unpaid',
  payment_intent: 'pi_{{run}}_async',
});
event('checkout.session.async_payment_succeeded', 'checkout.session.async_payment_succeeded', {
  ...paidSession,
  id: 'cs_{{run}}_async',
  payment_status: 'paid',
  payment_intent: 'pi_{{run}}_async',
});
event('checkout.session.completed.subscription', 'checkout.session.completed', {
  ...paidSession,
  id: 'cs_{{run}}_subscription',
  mode: 'subscription',
  amount_total: 2000,
  subscription: 'sub_{{run}}',
  payment_intent: null,
});
event('checkout.session.completed.connect', 'checkout.session.completed', { ...paidSession, id: 'cs_{{run}}_connect', payment_intent: 'pi_{{run}}_connect' }, {
  account: '{{account_id}}',
});

// Invoices, Stripe API 2025-03-31 and later: subscription details under invoice.parent.
const modernInvoice = (id: string, billingReason: string, subscriptionMetadata: unknown) => ({
  ...invoiceModern,
  id,
  customer: 'cus_{{run}}',
  customer_email: '{{email}}',
  billing_reason: billingReason,
  amount_due: 2000,
  amount_paid: 2000,
  amount_remaining: 0,
  currency: 'usd',
  status: 'paid',
  parent: { type: 'subscription_details', quote_details: null, subscription_details: { metadata: subscriptionMetadata, subscription: 'sub_{{run}}' } },
  payments: { object: 'list', has_more: false, data: [{ object: 'invoice_payment', id: `inpay_${id}`, payment: { type: 'payment_intent', payment_intent: `pi_${id}` } }] },
  livemode: true,
});
event('invoice.payment_succeeded.first', 'invoice.payment_succeeded', modernInvoice('in_{{run}}_first', 'subscription_create', metadata));
// Renewal whose subscription lacks subscription_data.metadata: resolved by the Stripe customer.
event('invoice.payment_succeeded.renewal', 'invoice.payment_succeeded', modernInvoice('in_{{run}}_renewal', 'subscription_cycle', null));
event('invoice.paid.renewal', 'invoice.paid', modernInvoice('in_{{run}}_renewal', 'subscription_cycle', null));

// A free trial: Stripe's $0 invoice at signup (no payment), then the first paid invoice, which
// Stripe marks subscription_cycle. And an upgrade's proration invoice beside a create invoice.
const withAmount = (invoice: ReturnType<typeof modernInvoice>, cents: number) => ({
  ...invoice,
  amount_due: cents,
  amount_paid: cents,
  subtotal: cents,
  total: cents,
  lines: { ...invoice.lines, data: (invoice.lines?.data ?? []).map((line: Record<string, unknown>) => ({ ...line, amount: cents })) },
  ...(cents === 0 ? { payments: { object: 'list', has_more: false, data: [] } } : {}),
});
event('invoice.payment_succeeded.trial-start', 'invoice.payment_succeeded', withAmount(modernInvoice('in_{{run}}_trial', 'subscription_create', metadata), 0));
event('invoice.payment_succeeded.after-trial', 'invoice.payment_succeeded', withAmount(modernInvoice('in_{{run}}_after_trial', 'subscription_cycle', metadata), 2900));
event('invoice.payment_succeeded.create', 'invoice.payment_succeeded', withAmount(modernInvoice('in_{{run}}_create', 'subscription_create', metadata), 2900));
event('invoice.payment_succeeded.upgrade', 'invoice.payment_succeeded', withAmount(modernInvoice('in_{{run}}_upgrade', 'subscription_update', metadata), 1550));

// As Stripe sends it on 2025-03-31+: `payments` is not expanded in webhooks, so the invoice
// names no payment; invoice_payment.paid links it to its payment intent.
const { payments: _notExpanded, ...unexpandedFirst } = modernInvoice('in_{{run}}_first', 'subscription_create', metadata);
event('invoice.payment_succeeded.first-unexpanded', 'invoice.payment_succeeded', unexpandedFirst);
event('invoice_payment.paid', 'invoice_payment.paid', {
  ...invoicePayment,
  id: 'inpay_{{run}}_first',
  invoice: 'in_{{run}}_first',
  amount_paid: 2000,
  amount_requested: 2000,
  currency: 'usd',
  status: 'paid',
  payment: { type: 'payment_intent', payment_intent: 'pi_{{run}}_invoice' },
  livemode: true,
});

// Invoices before 2025-03-31: top-level subscription_details / subscription, payment_intent, charge.
event('invoice.payment_succeeded.legacy-renewal', 'invoice.payment_succeeded', {
  ...invoiceLegacy,
  id: 'in_{{run}}_legacy',
  customer: 'cus_{{run}}',
  customer_email: '{{email}}',
  billing_reason: 'subscription_cycle',
  amount_due: 2000,
  amount_paid: 2000,
  currency: 'usd',
  status: 'paid',
  subscription: 'sub_{{run}}',
  subscription_details: { metadata },
  payment_intent: 'pi_{{run}}_legacy',
  charge: 'ch_{{run}}_legacy',
  livemode: true,
}, { api_version: '2024-06-20' });

// Refunds: the legacy shape embeds the refunds list in the charge; newer ones only amount_refunded.
const refundObject = (id: string, amount: number, chargeId: string) => ({ ...refund, id, amount, charge: chargeId, payment_intent: 'pi_{{run}}_payment', created: 1_700_000_000 });
event('charge.refunded.partial-legacy', 'charge.refunded', {
  ...chargeLegacy,
  id: 'ch_{{run}}_payment',
  amount: 4900,
  amount_captured: 4900,
  amount_refunded: 1000,
  refunded: false,
  payment_intent: 'pi_{{run}}_payment',
  refunds: { object: 'list', has_more: false, url: '/v1/charges/ch_{{run}}_payment/refunds', data: [refundObject('re_{{run}}_1', 1000, 'ch_{{run}}_payment')] },
  livemode: true,
}, { api_version: '2024-06-20' });
event('charge.refunded.full', 'charge.refunded', {
  ...charge,
  id: 'ch_{{run}}_payment',
  amount: 4900,
  amount_captured: 4900,
  amount_refunded: 4900,
  refunded: true,
  payment_intent: 'pi_{{run}}_payment',
  refunds: undefined,
  livemode: true,
});

// A refund of the invoice's payment (current shape: no refunds list, no invoice on the charge),
// and the same refund failing afterwards.
event('charge.refunded.invoice', 'charge.refunded', {
  ...charge,
  id: 'ch_{{run}}_invoice',
  amount: 2000,
  amount_captured: 2000,
  amount_refunded: 500,
  refunded: false,
  payment_intent: 'pi_{{run}}_invoice',
  refunds: undefined,
  livemode: true,
});
event('charge.refund.updated.failed', 'charge.refund.updated', {
  ...refundObject('re_{{run}}_invoice', 500, 'ch_{{run}}_invoice'),
  payment_intent: 'pi_{{run}}_invoice',
  status: 'failed',
  failure_reason: 'expired_or_canceled_card',
});

const disputed = { ...dispute, id: 'dp_{{run}}', amount: 4900, charge: 'ch_{{run}}_payment', payment_intent: 'pi_{{run}}_payment', livemode: true };
event('charge.dispute.created', 'charge.dispute.created', { ...disputed, status: 'needs_response' });
event('charge.dispute.closed.won', 'charge.dispute.closed', { ...disputed, status: 'won' });
// An inquiry (Stripe takes no money) as the reference object is, and a partial dispute of 1000.
event('charge.dispute.created.inquiry', 'charge.dispute.created', { ...disputed, status: 'warning_needs_response' });
event('charge.dispute.closed.inquiry', 'charge.dispute.closed', { ...disputed, status: 'warning_closed' });
event('charge.dispute.created.partial', 'charge.dispute.created', { ...disputed, amount: 1000, status: 'needs_response' });
event('charge.dispute.closed.partial-lost', 'charge.dispute.closed', { ...disputed, amount: 1000, status: 'lost' });
event('plan.created.unhandled', 'plan.created', envelope.data.object);
console.log(`fixtures written to ${outDir}`);
