// Job handler: one stored Stripe event -> one core call -> the inbox row says what happened.
import { z } from 'zod';
import { AffixError } from '../core/errors.js';
import {
  NotYetResolvable,
  type ProcessorOutcome,
  bindProcessorCheckout,
  recordProcessorDispute,
  recordProcessorPayment,
  recordProcessorRefund,
  restoreProcessorDispute,
} from '../core/processor.js';
import type { Store } from '../core/ports.js';
import { isRejectedValue } from '../db/errors.js';
import type { Pool } from '../db/pool.js';
import { type EventUpdate, finishEvent, loadEventPayload, recordFailedAttempt } from '../db/webhook-events.js';
import type { Logger } from '../logger.js';
import { readCheckoutSession, readDispute, readInvoice, readRefundedCharge } from './stripe/read-objects.js';

export const stripeEventJobSchema = z.object({ inboxId: z.number().int().positive() });

export interface WorkerDeps {
  pool: Pool;
  store: Store;
  logger: Logger;
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
    case 'unresolved':
      return { status: 'ignored', reason: 'no affiliate attribution: no click, lead, known customer or customer key matches' };
  }
}

/** Maps the event to its core call. Returns what to write on the inbox row. */
async function dispatch(deps: WorkerDeps, programId: number, event: any): Promise<EventUpdate> {
  const object = event.data?.object ?? {};
  const occurredAt = new Date(Number(event.created) * 1000);
  const now = deps.now?.() ?? new Date();
  const base = { programId, occurredAt, livemode: event.livemode === true, eventName: event.type as string };

  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const checkout = readCheckoutSession(object);
      if (checkout.mode === 'subscription') {
        return fromOutcome(await bindProcessorCheckout(deps.store, { programId, ...checkout.payment }));
      }
      if (checkout.mode !== 'payment') return { status: 'ignored', reason: `checkout mode ${checkout.mode} carries no payment` };
      if (checkout.paymentStatus === 'unpaid') {
        return { status: 'ignored', reason: 'payment not settled yet; waiting for checkout.session.async_payment_succeeded' };
      }
      if (checkout.paymentStatus !== 'paid') return { status: 'ignored', reason: `payment_status ${checkout.paymentStatus}` };
      if (checkout.payment.amountCents <= 0) return { status: 'ignored', reason: 'session total is not positive' };
      return fromOutcome(await recordProcessorPayment(deps.store, { ...base, ...checkout.payment }, now));
    }
    case 'invoice.payment_succeeded':
    case 'invoice.paid': {
      const invoice = readInvoice(object);
      if (!invoice.subscriptionId) return { status: 'ignored', reason: 'invoice is not for a subscription' };
      if (invoice.payment.amountCents <= 0) return { status: 'ignored', reason: 'amount_paid is not positive' };
      return fromOutcome(await recordProcessorPayment(deps.store, { ...base, ...invoice.payment }, now));
    }
    case 'charge.refunded': {
      const result = await recordProcessorRefund(deps.store, { programId, ...readRefundedCharge(object) });
      return { status: 'processed', saleId: result.saleId, result: { refunds: result.results } };
    }
    case 'charge.dispute.created': {
      const dispute = readDispute(object);
      const result = await recordProcessorDispute(deps.store, { programId, ...dispute });
      return { status: 'processed', saleId: result.saleId, reason: 'chargeback: commission reversed', result: { refunds: result.results } };
    }
    case 'charge.dispute.closed': {
      const dispute = readDispute(object);
      if (dispute.status !== 'won') return { status: 'ignored', reason: `dispute closed with status ${dispute.status}; chargeback stands` };
      const result = await restoreProcessorDispute(deps.store, { programId, ...dispute });
      return { status: 'processed', saleId: result.saleId, reason: result.kind === 'restored' ? 'dispute won: commission restored' : 'nothing to restore' };
    }
    default:
      return { status: 'ignored', reason: `event type ${event.type} is not handled` };
  }
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
  try {
    const update = await dispatch(deps, event.program_id, payload);
    await finishEvent(deps.pool, inboxId, update);
    log.info({ type: event.type, status: update.status, step: update.attributionStep, saleId: update.saleId, ms: Date.now() - started }, 'stripe event processed');
    return update;
  } catch (error) {
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
