// Stripe as one adapter of the processor port: each handled event type read as one fact.
import { errors } from '../errors.js';
import { type DisputeEvent, disputeEffect } from '../disputes.js';
import type { ProcessorAdapter, ProcessorFact } from '../processor-port.js';
import { type HandledStripeEventType, HANDLED_STRIPE_EVENT_TYPES, STRIPE_EVENTS_TO_SELECT, isHandledStripeEvent } from './event-types.js';
import { stripeCheckoutPurchase, stripeInvoicePurchase } from '../sale-facts.js';
import { readCheckoutSession, readDispute, readInvoice, readInvoicePayment, readRefund, readRefundedCharge, stripeCustomerOf, stripeObjectIds } from './read-objects.js';

type Obj = Record<string, any>;
interface Base {
  processor: 'stripe';
  occurredAt: Date;
  livemode: boolean;
  eventName: string;
}
type Reader = (object: Obj, base: Base) => ProcessorFact;

function checkoutCompleted(object: Obj, base: Base): ProcessorFact {
  const checkout = readCheckoutSession(object);
  if (checkout.mode === 'subscription') return { kind: 'bind', checkout: checkout.payment };
  if (checkout.mode !== 'payment') return { kind: 'ignored', reason: `checkout mode ${checkout.mode} carries no payment` };
  if (checkout.paymentStatus === 'unpaid') return { kind: 'ignored', reason: 'payment not settled yet; waiting for checkout.session.async_payment_succeeded' };
  if (checkout.paymentStatus !== 'paid') return { kind: 'ignored', reason: `payment_status ${checkout.paymentStatus}` };
  if (checkout.payment.amountCents <= 0) return { kind: 'ignored', reason: 'session total is not positive' };
  return { kind: 'payment', payment: { ...base, ...checkout.payment, purchase: stripeCheckoutPurchase(object) } };
}

function invoicePaid(object: Obj, base: Base): ProcessorFact {
  const invoice = readInvoice(object);
  if (!invoice.subscriptionId) return { kind: 'ignored', reason: 'invoice is not for a subscription' };
  // A $0 invoice (a trial's start, a 100 %-off coupon) is no sale: the first paid one is the first sale.
  if (invoice.payment.amountCents <= 0) return { kind: 'ignored', reason: 'amount_paid is not positive: a $0 invoice is no sale' };
  // The first-sale rule orders sales by when they were paid: the invoice's own time, else the event's.
  return { kind: 'payment', payment: { ...base, occurredAt: invoice.paidAt ?? base.occurredAt, ...invoice.payment, purchase: stripeInvoicePurchase(object) } };
}

function invoicePaymentPaid(object: Obj): ProcessorFact {
  const link = readInvoicePayment(object);
  if (!link.invoiceId || link.paymentIds.length === 0) return { kind: 'ignored', reason: 'invoice payment names no invoice or payment' };
  return { kind: 'payment_link', transactionId: link.invoiceId, paymentIds: link.paymentIds };
}

const chargeRefunded = (object: Obj): ProcessorFact => ({ kind: 'refund', refund: { processor: 'stripe', ...readRefundedCharge(object) } });

function refundUpdated(object: Obj): ProcessorFact {
  const refund = readRefund(object);
  if (refund.status !== 'failed') return { kind: 'ignored', reason: `refund status ${refund.status}: nothing to undo` };
  return { kind: 'refund_failed', refund };
}

/** Every dispute event: what it does to the commission is the core's rule (src/core/disputes.ts). */
const disputeReader =
  (event: DisputeEvent): Reader =>
  (object) => {
    const dispute = readDispute(object);
    const { effect, why } = disputeEffect(event, dispute.status);
    if (effect === 'none') return { kind: 'ignored', reason: why };
    return { kind: 'dispute', dispute: { processor: 'stripe', disputeId: dispute.disputeId, paymentIds: dispute.paymentIds, amountCents: dispute.amountCents }, effect, why };
  };

/** Every handled type has exactly one reader (the compiler checks the list against this table). */
const READERS: Record<HandledStripeEventType, Reader> = {
  'checkout.session.completed': checkoutCompleted,
  'checkout.session.async_payment_succeeded': checkoutCompleted,
  'invoice.payment_succeeded': invoicePaid,
  'invoice.paid': invoicePaid,
  'invoice_payment.paid': invoicePaymentPaid,
  'charge.refunded': chargeRefunded,
  'charge.refund.updated': refundUpdated,
  'refund.updated': refundUpdated,
  'refund.failed': refundUpdated,
  'charge.dispute.created': disputeReader('created'),
  'charge.dispute.funds_withdrawn': disputeReader('funds_withdrawn'),
  'charge.dispute.funds_reinstated': disputeReader('funds_reinstated'),
  'charge.dispute.closed': disputeReader('closed'),
};

/** Ids and names Stripe sends are short printable ASCII; anything else is not a Stripe event. */
const isToken = (value: unknown): value is string => typeof value === 'string' && /^[\x21-\x7e]{1,255}$/.test(value);
const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The envelope every Stripe event has (id, type, livemode, api_version, account, data.object),
 * checked field by field: the fields that are not as Stripe sends them, in that order. Only "an
 * object" for data.object: the workers read what is inside (no walk over its keys here).
 */
function envelopeProblems(event: unknown): string[] {
  if (!isObject(event)) return ['body'];
  const problems: string[] = [];
  if (!isToken(event.id)) problems.push('id');
  if (!isToken(event.type)) problems.push('type');
  if (event.livemode !== undefined && typeof event.livemode !== 'boolean') problems.push('livemode');
  if (event.api_version !== undefined && event.api_version !== null && !isToken(event.api_version)) problems.push('api_version');
  if (event.account !== undefined && event.account !== null && !isToken(event.account)) problems.push('account');
  if (!isObject(event.data)) problems.push('data');
  else if (!isObject(event.data.object)) problems.push('data.object');
  return problems;
}

export const stripeAdapter: ProcessorAdapter = {
  name: 'stripe',
  handledTypes: HANDLED_STRIPE_EVENT_TYPES,
  eventsToSelect: STRIPE_EVENTS_TO_SELECT,
  envelope: (event) => {
    // Correctly signed, so Stripe will retry it for days: a clear 400 tells whoever reads the
    // endpoint's log in Stripe's dashboard why it was refused.
    const fields = envelopeProblems(event);
    if (fields.length) throw errors.badRequest(`Signed payload is not a Stripe event (check: ${fields.join(', ')})`);
    const e = event as Obj;
    return { eventId: e.id, type: e.type, livemode: e.livemode === true, objectIds: stripeObjectIds(e), account: e.account ?? null, apiVersion: e.api_version ?? null };
  },
  read: (event) => {
    const e = event as { type: string; created: unknown; livemode?: unknown; data?: { object?: unknown } };
    if (!isHandledStripeEvent(e.type)) return { kind: 'ignored', reason: `event type ${e.type} is not handled` };
    const base: Base = { processor: 'stripe', occurredAt: new Date(Number(e.created) * 1000), livemode: e.livemode === true, eventName: e.type };
    return READERS[e.type]((e.data?.object ?? {}) as Obj, base);
  },
  customerOf: (event) => stripeCustomerOf(event as Obj),
};
