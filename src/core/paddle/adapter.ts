// Paddle Billing as one adapter of the processor port (docs/paddle.md). Only where each fact
// sits in Paddle's notifications; every rule after that is the core's.
import { errors } from '../errors.js';
import { paddleTransactionPurchase } from '../sale-facts.js';
import { type ProcessorAdapter, type ProcessorFact, namespacedCustomer } from '../processor-port.js';
import { metadataText, readReferralMetadata } from '../referral-metadata.js';

type Obj = Record<string, any>;

export const PADDLE_HANDLED_TYPES = ['transaction.completed', 'adjustment.created', 'adjustment.updated'] as const;

/**
 * Paddle amounts are strings in the currency's smallest unit ("2900"). Anything else is not a
 * usable amount: NaN, which the core refuses as a permanent failure (never rounded).
 */
const amount = (value: unknown): number => (typeof value === 'string' && /^\d{1,16}$/.test(value) ? Number(value) : typeof value === 'number' ? value : Number.NaN);
const compact = (values: (string | null)[]): string[] => [...new Set(values.filter((v): v is string => v !== null))];
const date = (...values: unknown[]): Date => {
  for (const value of values) {
    const parsed = typeof value === 'string' ? new Date(value) : null;
    if (parsed && !Number.isNaN(parsed.getTime())) return parsed;
  }
  throw errors.badRequest('The transaction has no billed_at or occurred_at time');
};

function transactionCompleted(event: Obj, livemode: boolean): ProcessorFact {
  const txn = (event.data ?? {}) as Obj;
  const id = metadataText(txn.id);
  if (!id) throw errors.badRequest('The transaction has no id');
  const totals = (txn.details?.totals ?? {}) as Obj;
  const custom = (txn.custom_data ?? {}) as Obj;
  const customer = namespacedCustomer('paddle', metadataText(txn.customer_id));
  const checkout = {
    metadata: readReferralMetadata(custom),
    // Paddle's transactions carry no email: a checkout that wants email matching passes it as custom data.
    email: metadataText(custom.affix_email),
    processorCustomerId: customer,
    promotionRefs: compact([metadataText(txn.discount_id)]),
  };
  const total = amount(totals.grand_total ?? totals.total);
  // A $0 transaction (a trial's start, a 100 %-off discount) pays nothing: it binds the customer,
  // and the first paid transaction of the subscription is the first sale.
  if (total === 0) return { kind: 'bind', checkout };
  const subscriptionId = metadataText(txn.subscription_id);
  return {
    kind: 'payment',
    payment: {
      ...checkout,
      processor: 'paddle',
      transactionId: id,
      amountCents: total,
      currency: String(txn.currency_code ?? totals.currency_code ?? ''),
      occurredAt: date(txn.billed_at, event.occurred_at),
      livemode,
      paymentIds: [id],
      isRecurring: txn.origin === 'subscription_recurring',
      saleType: subscriptionId ? 'subscription' : 'payment',
      subscriptionId,
      eventName: String(event.event_type),
      taxCents: Number.isSafeInteger(amount(totals.tax)) ? amount(totals.tax) : null,
      purchase: paddleTransactionPurchase(txn),
    },
  };
}

/** Refunds, credits and chargebacks; only an approved adjustment moves money. */
function adjustment(event: Obj): ProcessorFact {
  const adj = (event.data ?? {}) as Obj;
  const id = metadataText(adj.id);
  const transactionId = metadataText(adj.transaction_id);
  if (!id || !transactionId) throw errors.badRequest('The adjustment names no id or transaction');
  const action = String(adj.action ?? '');
  if (adj.status !== 'approved') return { kind: 'ignored', reason: `adjustment ${action} is ${adj.status}: only an approved one moves money` };
  const cents = amount(adj.totals?.total);
  const ids = { paymentIds: [transactionId], transactionIds: [transactionId] };
  switch (action) {
    case 'refund':
    case 'credit':
      return { kind: 'refund', refund: { processor: 'paddle', ...ids, chargeId: transactionId, refunds: [{ id, amountCents: cents }], cumulativeRefundedCents: null } };
    // Each chargeback and each reversal is its own adjustment with its own amount: counted by its id,
    // never by the transaction they share (two partial chargebacks, or one after a reversal, both count).
    case 'chargeback':
      return { kind: 'chargeback_adjustment', adjustment: { processor: 'paddle', adjustmentId: id, paymentIds: [transactionId], amountCents: cents, direction: 'taken' }, why: 'chargeback: commission reduced by the amount charged back' };
    case 'chargeback_reverse':
      return { kind: 'chargeback_adjustment', adjustment: { processor: 'paddle', adjustmentId: id, paymentIds: [transactionId], amountCents: cents, direction: 'given_back' }, why: 'chargeback reversed: commission restored by the amount reversed' };
    default:
      return { kind: 'ignored', reason: `adjustment ${action}: no money moved for the partner` };
  }
}

export const paddleAdapter: ProcessorAdapter = {
  name: 'paddle',
  handledTypes: PADDLE_HANDLED_TYPES,
  eventsToSelect: PADDLE_HANDLED_TYPES,
  envelope: (event, { sandbox }) => {
    const e = (event ?? {}) as Obj;
    const eventId = metadataText(e.event_id);
    const type = metadataText(e.event_type);
    if (!eventId || !type || !/^[\x21-\x7e]{1,255}$/.test(eventId) || typeof e.data !== 'object' || e.data === null) {
      throw errors.badRequest('Signed payload is not a Paddle notification (check: event_id, event_type, data)');
    }
    const data = e.data as Obj;
    return { eventId, type, livemode: !sandbox, objectIds: compact([metadataText(data.id), metadataText(data.transaction_id), metadataText(data.customer_id), metadataText(data.subscription_id)]) };
  },
  read: (event, { livemode }) => {
    const e = (event ?? {}) as Obj;
    if (e.event_type === 'transaction.completed') return transactionCompleted(e, livemode);
    if (e.event_type === 'adjustment.created' || e.event_type === 'adjustment.updated') return adjustment(e);
    return { kind: 'ignored', reason: `event type ${e.event_type} is not handled` };
  },
  customerOf: (event) => namespacedCustomer('paddle', metadataText((event as Obj)?.data?.customer_id)),
};
