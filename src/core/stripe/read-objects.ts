// Reads Stripe objects (both invoice shapes, checkout sessions, charges, disputes) into the
// core's plain inputs. No rules here: only where each fact sits in each API version, and
// amounts in ISO minor units (./amounts.ts).
import type { ProcessorPayment, ProcessorRefund } from '../processor.js';
import { readReferralMetadata as readMetadata } from '../referral-metadata.js';
import { fromStripeAmount, readStripeAmount } from './amounts.js';

type Obj = Record<string, any>;

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
/** Expandable fields arrive as an id or as the expanded object. */
const idOf = (value: unknown): string | null => text(value) ?? (value && typeof value === 'object' ? text((value as Obj).id) : null);
const compact = (values: (string | null)[]): string[] => [...new Set(values.filter((v): v is string => v !== null))];

/**
 * Promotion codes and coupons a checkout or invoice applied, wherever the API version puts them:
 * `discounts[]` (ids, or objects with `promotion_code` and `coupon` / `source.coupon`), the
 * legacy `discount`, the checkout's `total_details.breakdown.discounts[].discount`, the
 * invoice's `total_discount_amounts[].discount` and its lines' discounts. Expanded promotion
 * codes give their customer-facing `code` too.
 */
export function promotionRefs(object: Obj): string[] {
  const refs: (string | null)[] = [];
  const readDiscount = (discount: unknown) => {
    if (!discount || typeof discount !== 'object') return;
    const d = discount as Obj;
    refs.push(idOf(d.promotion_code), idOf(d.coupon), idOf(d.source?.coupon));
    if (d.promotion_code && typeof d.promotion_code === 'object') refs.push(text(d.promotion_code.code));
  };
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  list(object.discounts).forEach(readDiscount);
  readDiscount(object.discount);
  list(object.total_details?.breakdown?.discounts).forEach((entry) => readDiscount((entry as Obj)?.discount));
  list(object.total_discount_amounts).forEach((entry) => readDiscount((entry as Obj)?.discount));
  for (const line of list(object.lines?.data)) {
    list((line as Obj).discounts).forEach(readDiscount);
    list((line as Obj).discount_amounts).forEach((entry) => readDiscount((entry as Obj)?.discount));
  }
  return compact(refs);
}

export interface CheckoutFacts {
  mode: 'payment' | 'subscription' | 'setup' | string;
  paymentStatus: string;
  payment: Omit<ProcessorPayment, 'programId' | 'processor' | 'occurredAt' | 'livemode' | 'eventName'>;
}

/** A payment's amount in ISO minor units, or why not: kept as a value so that the currency rule answers first. */
const paymentAmount = (amount: unknown, currency: unknown) => {
  const read = readStripeAmount(Number(amount ?? 0), currency);
  return { amountCents: read.amountCents, amountProblem: read.problem };
};

export function readCheckoutSession(session: Obj): CheckoutFacts {
  return {
    mode: session.mode,
    paymentStatus: session.payment_status,
    payment: {
      transactionId: session.id,
      ...paymentAmount(session.amount_total, session.currency),
      currency: String(session.currency ?? ''),
      metadata: readMetadata(session.metadata, text(session.client_reference_id)),
      email: text(session.customer_details?.email) ?? text(session.customer_email),
      processorCustomerId: idOf(session.customer),
      paymentIds: compact([idOf(session.payment_intent)]),
      promotionRefs: promotionRefs(session),
      isRecurring: false,
      saleType: 'payment',
      subscriptionId: idOf(session.subscription),
    },
  };
}

export interface InvoiceFacts {
  billingReason: string | null;
  subscriptionId: string | null;
  /** When the invoice was paid (status_transitions.paid_at), when Stripe says: the sale's occurred_at. */
  paidAt: Date | null;
  payment: Omit<ProcessorPayment, 'programId' | 'processor' | 'occurredAt' | 'livemode' | 'eventName'>;
}

/**
 * Subscription details sit under invoice.parent.subscription_details from Stripe API 2025-03-31
 * on, and at the top level (subscription_details, subscription) before.
 */
export function readInvoice(invoice: Obj): InvoiceFacts {
  const modern = invoice.parent?.subscription_details as Obj | undefined;
  const details = modern ?? (invoice.subscription_details as Obj | undefined) ?? null;
  const subscriptionId = idOf(modern?.subscription) ?? idOf(invoice.subscription);
  const payments: Obj[] = Array.isArray(invoice.payments?.data) ? invoice.payments.data : [];
  const paidAt = Number(invoice.status_transitions?.paid_at);
  return {
    billingReason: text(invoice.billing_reason),
    subscriptionId,
    paidAt: Number.isSafeInteger(paidAt) && paidAt > 0 ? new Date(paidAt * 1000) : null,
    payment: {
      transactionId: invoice.id,
      ...paymentAmount(invoice.amount_paid, invoice.currency),
      currency: String(invoice.currency ?? ''),
      metadata: readMetadata(details?.metadata),
      email: text(invoice.customer_email),
      processorCustomerId: idOf(invoice.customer),
      paymentIds: compact([
        idOf(invoice.payment_intent),
        idOf(invoice.charge),
        ...payments.flatMap((p) => [idOf(p.payment?.payment_intent), idOf(p.payment?.charge)]),
      ]),
      promotionRefs: promotionRefs(invoice),
      isRecurring: invoice.billing_reason === 'subscription_cycle',
      saleType: 'subscription',
      subscriptionId,
    },
  };
}

/** charge.refunded: the embedded refunds list when Stripe sends it whole, else the cumulative amount. */
export function readRefundedCharge(charge: Obj): Omit<ProcessorRefund, 'programId' | 'processor'> {
  const list = charge.refunds;
  const complete = list && Array.isArray(list.data) && list.data.length > 0 && list.has_more === false;
  return {
    chargeId: charge.id,
    paymentIds: compact([idOf(charge.payment_intent), text(charge.id)]),
    transactionIds: compact([idOf(charge.invoice)]),
    refunds: complete
      ? (list.data as Obj[])
          .filter((refund) => refund.status !== 'failed' && refund.status !== 'canceled')
          .sort((a, b) => Number(a.created ?? 0) - Number(b.created ?? 0))
          .map((refund) => ({ id: String(refund.id), amountCents: fromStripeAmount(Number(refund.amount), refund.currency ?? charge.currency) }))
      : null,
    cumulativeRefundedCents: fromStripeAmount(Number(charge.amount_refunded ?? 0), charge.currency),
  };
}

/** invoice_payment.paid: which payment settled which invoice (Stripe API 2025-03-31+). */
export function readInvoicePayment(invoicePayment: Obj): { invoiceId: string | null; paymentIds: string[]; status: string } {
  const payment = (invoicePayment.payment ?? {}) as Obj;
  return {
    invoiceId: idOf(invoicePayment.invoice),
    paymentIds: compact([idOf(payment.payment_intent), idOf(payment.charge)]),
    status: String(invoicePayment.status ?? ''),
  };
}

/** A refund object (charge.refund.updated, refund.updated, refund.failed). */
export function readRefund(refund: Obj): { refundId: string; amountCents: number; status: string; paymentIds: string[] } {
  return {
    refundId: String(refund.id),
    amountCents: fromStripeAmount(Number(refund.amount ?? 0), refund.currency),
    status: String(refund.status ?? ''),
    paymentIds: compact([idOf(refund.payment_intent), idOf(refund.charge)]),
  };
}

/** The Stripe customer a checkout or invoice names (the one its attribution binds). */
export const stripeCustomerOf = (event: Obj): string | null => idOf(event?.data?.object?.customer);

const OBJECT_ID_FIELDS = ['id', 'customer', 'payment_intent', 'charge', 'invoice', 'subscription'] as const;

/** The Stripe object ids an event names (cs_, in_, ch_, pi_, du_, re_, cus_, sub_): support looks events up by them. */
export function stripeObjectIds(event: Obj): string[] {
  const object = (event?.data?.object ?? {}) as Obj;
  const nested = [object.payment?.payment_intent, object.payment?.charge, object.parent?.subscription_details?.subscription];
  return compact([...OBJECT_ID_FIELDS.map((field) => idOf(object[field])), ...nested.map(idOf)]).slice(0, 16);
}

/** A dispute: its amount is what the network takes back (a partial dispute names less than the charge). */
export function readDispute(dispute: Obj): { disputeId: string; paymentIds: string[]; status: string; amountCents: number | null } {
  return {
    disputeId: dispute.id,
    paymentIds: compact([idOf(dispute.payment_intent), idOf(dispute.charge)]),
    status: String(dispute.status ?? ''),
    amountCents: dispute.amount === undefined || dispute.amount === null ? null : fromStripeAmount(Number(dispute.amount), dispute.currency),
  };
}
