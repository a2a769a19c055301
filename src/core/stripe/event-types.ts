// The Stripe event types the workers act on; any other type is recorded as ignored at intake.
// The job's handler table is typed by this list, so the two cannot drift apart.
export const HANDLED_STRIPE_EVENT_TYPES = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.payment_succeeded',
  'invoice.paid',
  'invoice_payment.paid',
  'charge.refunded',
  'charge.refund.updated',
  'refund.updated',
  'refund.failed',
  'charge.dispute.created',
  'charge.dispute.funds_withdrawn',
  'charge.dispute.funds_reinstated',
  'charge.dispute.closed',
] as const;

export type HandledStripeEventType = (typeof HANDLED_STRIPE_EVENT_TYPES)[number];

const HANDLED: ReadonlySet<string> = new Set(HANDLED_STRIPE_EVENT_TYPES);

export const isHandledStripeEvent = (type: string): type is HandledStripeEventType => HANDLED.has(type);

/**
 * How long an event that cannot be attributed yet waits for what it needs. A subscription
 * payment waits for its checkout (Stripe sends both within a second; a day is generous and
 * keeps an unreferred customer's old payments from being claimed by a much later referral).
 * A Connect event waits for its account to be bound (onboarding can take days): as long as
 * its payload is kept.
 */
export const WAIT_FOR_CUSTOMER_DAYS = 1;

/**
 * How long a payment that carries our metadata, and that no click, lead or customer matches yet,
 * waits for one before its last attempt (AFFIX_ATTRIBUTION_WAIT_MINUTES). A lead recorded
 * meanwhile ends the wait at once.
 */
export const DEFAULT_ATTRIBUTION_WAIT_MINUTES = 60;

export interface Waiting {
  /** A Stripe customer (cus_) or Connect account (acct_) id. */
  id: string;
  days: number;
}

/** What happened to a stored event: queued -> processed | ignored | failed, or retrying -> parked | dead. */
export type InboxStatus = 'queued' | 'retrying' | 'processed' | 'ignored' | 'failed' | 'parked' | 'dead';
export const INBOX_STATUSES: readonly InboxStatus[] = ['queued', 'retrying', 'processed', 'ignored', 'failed', 'parked', 'dead'];

/**
 * The events a brand selects on its Stripe endpoint (docs/stripe.md): one of each pair that
 * says the same thing (invoice.paid, not also invoice.payment_succeeded).
 */
export const STRIPE_EVENTS_TO_SELECT: readonly HandledStripeEventType[] = [
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'invoice.paid',
  'invoice_payment.paid',
  'charge.refunded',
  'charge.refund.updated',
  'charge.dispute.created',
  'charge.dispute.closed',
  'charge.dispute.funds_withdrawn',
  'charge.dispute.funds_reinstated',
];
