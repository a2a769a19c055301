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
