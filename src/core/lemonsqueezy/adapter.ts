// Lemon Squeezy as one adapter of the processor port (docs/lemonsqueezy.md). Only where each
// fact sits in Lemon Squeezy's webhooks; every rule after that is the core's.
import { createHash } from 'node:crypto';
import { lemonSqueezyPurchase } from '../sale-facts.js';
import { errors } from '../errors.js';
import { type ProcessorAdapter, type ProcessorFact, namespacedCustomer } from '../processor-port.js';
import { metadataText, readReferralMetadata } from '../referral-metadata.js';

type Obj = Record<string, any>;

export const LEMON_SQUEEZY_HANDLED_TYPES = ['order_created', 'subscription_created', 'subscription_payment_success', 'order_refunded', 'subscription_payment_refunded'] as const;

/** The sale's transaction id: orders and subscription invoices are numbered apart. */
const orderTransaction = (id: string) => `ls_order_${id}`;
const invoiceTransaction = (id: string) => `ls_invoice_${id}`;
/** The payment id a subscription's initial invoice is known by: subscription_created links it to the order's sale. */
const initialInvoiceOf = (subscriptionId: string) => `ls_subscription_${subscriptionId}:initial`;
const text = (value: unknown): string | null => (value === undefined || value === null ? null : metadataText(String(value)));
const cents = (value: unknown): number => (typeof value === 'number' ? value : Number.NaN);
const date = (value: unknown): Date => {
  const parsed = typeof value === 'string' ? new Date(value) : null;
  if (!parsed || Number.isNaN(parsed.getTime())) throw errors.badRequest('The payment has no created_at time');
  return parsed;
};

interface Read {
  name: string;
  type: string;
  id: string;
  attributes: Obj;
  custom: Obj;
}

function parts(event: unknown): Read {
  const e = (event ?? {}) as Obj;
  const data = (e.data ?? {}) as Obj;
  const id = data.id === undefined || data.id === null ? null : metadataText(String(data.id));
  if (!id) throw errors.badRequest('The webhook names no object id');
  return { name: String(e.meta?.event_name ?? ''), type: String(data.type ?? ''), id, attributes: (data.attributes ?? {}) as Obj, custom: (e.meta?.custom_data ?? {}) as Obj };
}

function payment(read: Read, transactionId: string, livemode: boolean, recurring: boolean): ProcessorFact {
  const a = read.attributes;
  const checkout = {
    // Lemon Squeezy sends custom data on orders, not on subscription payments: those link through the customer.
    metadata: readReferralMetadata(read.custom),
    email: metadataText(a.user_email),
    processorCustomerId: namespacedCustomer('lemonsqueezy', a.customer_id === undefined || a.customer_id === null ? null : String(a.customer_id)),
    promotionRefs: [],
  };
  if (a.status !== 'paid') return { kind: 'ignored', reason: `status ${a.status}: not paid` };
  // A $0 order (a trial's start, a 100 %-off code) binds the customer; the first paid payment is the first sale.
  if (cents(a.total) === 0) return { kind: 'bind', checkout };
  const subscriptionId = a.subscription_id === undefined || a.subscription_id === null ? null : String(a.subscription_id);
  return {
    kind: 'payment',
    payment: {
      ...checkout,
      processor: 'lemonsqueezy',
      transactionId,
      amountCents: cents(a.total),
      currency: String(a.currency ?? ''),
      occurredAt: date(a.created_at),
      livemode,
      paymentIds: [transactionId],
      isRecurring: recurring,
      saleType: recurring || subscriptionId ? 'subscription' : 'payment',
      subscriptionId,
      eventName: read.name,
      taxCents: typeof a.tax === 'number' ? a.tax : null,
      purchase: lemonSqueezyPurchase(a),
    },
  };
}

/** `refunded_amount` is what was refunded in all, so far: each event counts only what is new. */
const refund = (transactionId: string, a: Obj, alsoKnownAs: string[] = []): ProcessorFact => ({
  kind: 'refund',
  refund: { processor: 'lemonsqueezy', paymentIds: [transactionId, ...alsoKnownAs], transactionIds: [transactionId], chargeId: transactionId, refunds: null, cumulativeRefundedCents: cents(a.refunded_amount) },
});

export const lemonSqueezyAdapter: ProcessorAdapter = {
  name: 'lemonsqueezy',
  handledTypes: LEMON_SQUEEZY_HANDLED_TYPES,
  eventsToSelect: LEMON_SQUEEZY_HANDLED_TYPES,
  /**
   * Lemon Squeezy sends no event id. The key is the event's name, its object and that object's
   * updated_at: a redelivery carries the same payload (one row), a second refund of the same
   * order changes updated_at (a row of its own). Hashed to bound its length.
   */
  envelope: (event) => {
    const e = (event ?? {}) as Obj;
    const name = metadataText(e.meta?.event_name);
    if (!name || typeof e.data !== 'object' || e.data === null || !/^[a-z_]{1,64}$/.test(name)) {
      throw errors.badRequest('Signed payload is not a Lemon Squeezy webhook (check: meta.event_name, data)');
    }
    const read = parts(e);
    const key = createHash('sha256').update(`${name}\n${read.type}\n${read.id}\n${String(read.attributes.updated_at ?? '')}`).digest('hex').slice(0, 32);
    const objectIds = [`${read.type}:${read.id}`, ...(read.attributes.customer_id ? [`customer:${read.attributes.customer_id}`] : []), ...(read.attributes.subscription_id ? [`subscription:${read.attributes.subscription_id}`] : [])];
    return { eventId: `${name}:${read.id}:${key}`, type: name, livemode: e.meta?.test_mode !== true && read.attributes.test_mode !== true, objectIds };
  },
  read: (event, { livemode }) => {
    const read = parts(event);
    switch (read.name) {
      case 'order_created':
        return payment(read, orderTransaction(read.id), livemode, false);
      case 'subscription_created': {
        // The initial invoice is paid by the subscription's order: its refund finds the order's sale through this link.
        const orderId = text(read.attributes.order_id);
        if (!orderId) return { kind: 'ignored', reason: 'the subscription names no order' };
        return { kind: 'payment_link', transactionId: orderTransaction(orderId), paymentIds: [initialInvoiceOf(read.id)] };
      }
      case 'subscription_payment_success':
        // A subscription's first payment comes both as its order and as an initial invoice: one sale, the order.
        if (read.attributes.billing_reason === 'initial') return { kind: 'ignored', reason: 'the first payment of a subscription is its order (order_created)' };
        return payment(read, invoiceTransaction(read.id), livemode, true);
      case 'order_refunded':
        return refund(orderTransaction(read.id), read.attributes);
      case 'subscription_payment_refunded': {
        // The initial invoice's money is the order's (one sale): refunded_amount counts against that sale, so this
        // and order_refunded for the same money count once, whichever comes first.
        const subscriptionId = text(read.attributes.subscription_id);
        const initial = read.attributes.billing_reason === 'initial' && subscriptionId ? [initialInvoiceOf(subscriptionId)] : [];
        return refund(invoiceTransaction(read.id), read.attributes, initial);
      }
      default:
        return { kind: 'ignored', reason: `event type ${read.name} is not handled` };
    }
  },
  customerOf: (event) => {
    const id = (event as Obj)?.data?.attributes?.customer_id;
    return namespacedCustomer('lemonsqueezy', id === undefined || id === null ? null : String(id));
  },
};
