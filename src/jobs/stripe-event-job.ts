// Job handler: one stored Stripe event -> one core call -> the inbox row says what happened.
import { STRIPE_EVENTS_JOB_QUEUE } from '../platform/queue.js';
import type PgBoss from 'pg-boss';
import { z } from 'zod';
import { type DisputeEvent, disputeEffect } from '../core/disputes.js';
import { AffixError } from '../core/errors.js';
import {
  NotYetResolvable,
  type ProcessorOutcome,
  bindProcessorCheckout,
  linkProcessorInvoicePayment,
  applyProcessorDispute,
  recordProcessorPayment,
  recordProcessorRefund,
  revertProcessorRefund,
} from '../core/processor.js';
import type { Transactions } from '../core/ports.js';
import { type HandledStripeEventType, WAIT_FOR_CUSTOMER_DAYS, isHandledStripeEvent } from '../core/stripe/event-types.js';
import {
  readCheckoutSession,
  readDispute,
  readInvoice,
  readInvoicePayment,
  readRefund,
  readRefundedCharge,
  stripeCustomerOf,
} from '../core/stripe/read-objects.js';
import { isRejectedValue } from '../db/errors.js';
import { HeldTransaction } from '../db/held-transaction.js';
import type { Pool } from '../db/pool.js';
import { type EventUpdate, finishEvent, loadEventPayload, recordFailedAttempt } from '../db/webhook-events.js';
import type { Logger } from '../platform/logger.js';

export const stripeEventJobSchema = z.object({ inboxId: z.number().int().positive() });

export interface WorkerDeps {
  pool: Pool;
  logger: Logger;
  /** Queues events that were waiting for a binding this event made. */
  queue: PgBoss;
  now?: () => Date;
}

const FINAL = new Set(['processed', 'ignored', 'failed']);

function fromOutcome(outcome: ProcessorOutcome): EventUpdate {
  switch (outcome.kind) {
    case 'recorded':
      return { status: 'processed', attributionStep: outcome.step, saleId: outcome.saleId, result: { commission_id: outcome.commissionId } };
    case 'bound':
      return { status: 'processed', attributionStep: outcome.step, reason: 'customer bound; the sale comes with the invoice', result: { customer_id: outcome.customerId } };
    case 'duplicate':
      return { status: 'processed', saleId: outcome.saleId, reason: 'sale already recorded' };
    case 'window_expired':
      return { status: 'ignored', reason: `attribution window expired (click ${outcome.clickAgeDays} days old, window ${outcome.windowDays})` };
    case 'program_mismatch':
      return { status: 'ignored', reason: `metadata program_id ${outcome.metadataProgramId} does not match this program` };
    case 'waiting_for_customer':
      return {
        status: 'ignored',
        reason: `no affiliate attribution yet: waiting for a checkout or first sale to bind Stripe customer ${outcome.stripeCustomerId}`,
        waitingFor: { id: outcome.stripeCustomerId, days: WAIT_FOR_CUSTOMER_DAYS },
      };
    case 'unresolved':
      return {
        status: 'ignored',
        reason: outcome.referenceOnly
          ? 'no affiliate attribution: client_reference_id matches no customer (an unreferred sale)'
          : 'no affiliate attribution: no click, lead, known customer or customer key matches',
      };
  }
}

interface EventContext {
  /** The job's transaction: the event's outcome is written in it before it commits. */
  store: Transactions;
  programId: number;
  object: any;
  base: { programId: number; occurredAt: Date; livemode: boolean; eventName: string };
  now: Date;
}

type Handler = (context: EventContext) => Promise<EventUpdate>;

async function checkoutCompleted({ store, programId, object, base, now }: EventContext): Promise<EventUpdate> {
  const checkout = readCheckoutSession(object);
  if (checkout.mode === 'subscription') {
    return fromOutcome(await bindProcessorCheckout(store, { programId, ...checkout.payment }, now));
  }
  if (checkout.mode !== 'payment') return { status: 'ignored', reason: `checkout mode ${checkout.mode} carries no payment` };
  if (checkout.paymentStatus === 'unpaid') {
    return { status: 'ignored', reason: 'payment not settled yet; waiting for checkout.session.async_payment_succeeded' };
  }
  if (checkout.paymentStatus !== 'paid') return { status: 'ignored', reason: `payment_status ${checkout.paymentStatus}` };
  if (checkout.payment.amountCents <= 0) return { status: 'ignored', reason: 'session total is not positive' };
  return fromOutcome(await recordProcessorPayment(store, { ...base, ...checkout.payment }, now));
}

async function invoicePaid({ store, object, base, now }: EventContext): Promise<EventUpdate> {
  const invoice = readInvoice(object);
  if (!invoice.subscriptionId) return { status: 'ignored', reason: 'invoice is not for a subscription' };
  // A $0 invoice (a trial's start, a 100 %-off coupon) is no sale: the first paid one is the first sale.
  if (invoice.payment.amountCents <= 0) return { status: 'ignored', reason: 'amount_paid is not positive: a $0 invoice is no sale' };
  // The first-sale rule orders sales by when they were paid: the invoice's own time, else the event's.
  return fromOutcome(await recordProcessorPayment(store, { ...base, occurredAt: invoice.paidAt ?? base.occurredAt, ...invoice.payment }, now));
}

async function invoicePaymentPaid({ store, programId, object }: EventContext): Promise<EventUpdate> {
  const link = readInvoicePayment(object);
  if (!link.invoiceId || link.paymentIds.length === 0) return { status: 'ignored', reason: 'invoice payment names no invoice or payment' };
  await linkProcessorInvoicePayment(store, { programId, invoiceId: link.invoiceId, paymentIds: link.paymentIds });
  return { status: 'processed', reason: `payment ${link.paymentIds.join(', ')} linked to invoice ${link.invoiceId}` };
}

async function chargeRefunded({ store, programId, object }: EventContext): Promise<EventUpdate> {
  const result = await recordProcessorRefund(store, { programId, ...readRefundedCharge(object) });
  return { status: 'processed', saleId: result.saleId, result: { refunds: result.results } };
}

async function refundUpdated({ store, programId, object }: EventContext): Promise<EventUpdate> {
  const refund = readRefund(object);
  if (refund.status !== 'failed') return { status: 'ignored', reason: `refund status ${refund.status}: nothing to undo` };
  const result = await revertProcessorRefund(store, { programId, ...refund });
  return {
    status: 'processed',
    saleId: result.saleId,
    reason: result.kind === 'reverted' ? 'refund failed: its deduction was given back' : 'refund failed: the sale has no commission',
  };
}

/** Every dispute event: what it does to the commission is the core's rule (src/core/disputes.ts). */
const disputeHandler =
  (event: DisputeEvent): Handler =>
  async ({ store, programId, object }) => {
    const dispute = readDispute(object);
    const { effect, why } = disputeEffect(event, dispute.status);
    if (effect === 'none') return { status: 'ignored', reason: why };
    const result = await applyProcessorDispute(store, { programId, ...dispute }, effect);
    const reason = result.kind === 'nothing_to_restore' ? 'nothing to restore' : why;
    return { status: 'processed', saleId: result.saleId, reason, ...(result.results.length ? { result: { refunds: result.results } } : {}) };
  };

/** Every handled type has exactly one handler (the compiler checks the list against this table). */
const HANDLERS: Record<HandledStripeEventType, Handler> = {
  'checkout.session.completed': checkoutCompleted,
  'checkout.session.async_payment_succeeded': checkoutCompleted,
  'invoice.payment_succeeded': invoicePaid,
  'invoice.paid': invoicePaid,
  'invoice_payment.paid': invoicePaymentPaid,
  'charge.refunded': chargeRefunded,
  'charge.refund.updated': refundUpdated,
  'refund.updated': refundUpdated,
  'refund.failed': refundUpdated,
  'charge.dispute.created': disputeHandler('created'),
  'charge.dispute.funds_withdrawn': disputeHandler('funds_withdrawn'),
  'charge.dispute.funds_reinstated': disputeHandler('funds_reinstated'),
  'charge.dispute.closed': disputeHandler('closed'),
};

/** Maps the event to its core call. Returns what to write on the inbox row. */
async function dispatch(store: Transactions, now: Date, programId: number, event: { type: string; created: unknown; livemode?: unknown; data?: { object?: unknown } }): Promise<EventUpdate> {
  if (!isHandledStripeEvent(event.type)) return { status: 'ignored', reason: `event type ${event.type} is not handled` };
  const base = { programId, occurredAt: new Date(Number(event.created) * 1000), livemode: event.livemode === true, eventName: event.type as string };
  return HANDLERS[event.type]({ store, programId, object: event.data?.object ?? {}, base, now });
}

/** Input that will fail the same way every time: recorded as failed at once, never retried. */
function permanentFailure(error: unknown): string | null {
  if (error instanceof AffixError && error.status < 500) return error.message;
  if (isRejectedValue(error)) return `the database refused a value in this event (SQLSTATE ${(error as { code: string }).code})`;
  return null;
}

/**
 * Processes one inbox row. Final rows are left alone (a duplicate job is a no-op). Errors that
 * may resolve later are recorded and rethrown so pg-boss retries; unsupported input is final.
 */
export async function processStripeEvent(deps: WorkerDeps, inboxId: number, jobId = ''): Promise<EventUpdate | null> {
  const log = deps.logger.child({ jobId, inboxId });
  const loaded = await loadEventPayload(deps.pool, inboxId);
  if (!loaded) {
    log.warn('inbox row not found');
    return null;
  }
  const { event, payload } = loaded;
  if (FINAL.has(event.status)) return null;
  if (payload === null) {
    const update: EventUpdate = { status: 'failed', reason: 'payload purged after the retention period' };
    await finishEvent(deps.pool, inboxId, update);
    return update;
  }
  if (event.program_id === null) {
    const update: EventUpdate = { status: 'ignored', reason: 'no program for this event' };
    await finishEvent(deps.pool, inboxId, update);
    return update;
  }
  const started = Date.now();
  const held = new HeldTransaction(deps.pool);
  try {
    const update = await dispatch(held, deps.now?.() ?? new Date(), event.program_id, payload);
    // An attributed checkout or invoice binds its Stripe customer: events waiting for it go now.
    const customer = update.attributionStep ? stripeCustomerOf(payload) : null;
    const wake = customer ? { queue: STRIPE_EVENTS_JOB_QUEUE, programId: event.program_id, stripeCustomerId: customer } : null;
    // In the use case's own transaction: the sale and "processed" commit together.
    const woken = await held.finish((db) => finishEvent(db, inboxId, update, wake));
    if (woken.length) log.info({ woken: woken.length }, 'queued events that were waiting for this binding');
    log.info({ type: event.type, status: update.status, step: update.attributionStep, saleId: update.saleId, ms: Date.now() - started }, 'stripe event processed');
    return update;
  } catch (error) {
    await held.abandon();
    const permanent = permanentFailure(error);
    if (permanent) {
      const update: EventUpdate = { status: 'failed', reason: permanent };
      await finishEvent(deps.pool, inboxId, update);
      log.warn({ type: event.type, reason: permanent }, 'stripe event failed');
      return update;
    }
    const waiting = error instanceof NotYetResolvable;
    await recordFailedAttempt(deps.pool, inboxId, (error as Error).message, waiting ? 'waiting' : 'error');
    log[waiting ? 'info' : 'error']({ type: event.type, err: waiting ? undefined : error, reason: (error as Error).message }, 'stripe event will be retried');
    throw error;
  }
}
