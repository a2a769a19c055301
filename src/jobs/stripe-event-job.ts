// Job handler: one stored processor event -> its adapter's fact -> one core call -> the inbox row says what happened.
import { STRIPE_EVENTS_JOB_QUEUE } from '../platform/queue.js';
import type PgBoss from 'pg-boss';
import { z } from 'zod';
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
import { WAIT_FOR_CUSTOMER_DAYS } from '../core/stripe/event-types.js';
import type { ProcessorFact } from '../core/processor-port.js';
import { ADAPTERS } from '../core/adapters.js';
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
        reason: `no affiliate attribution yet: waiting for a checkout or first sale to bind customer ${outcome.stripeCustomerId}`,
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

/** One fact, one core call (the same for every processor). Returns what to write on the inbox row. */
export async function applyFact(store: Transactions, programId: number, fact: ProcessorFact, now: Date): Promise<EventUpdate> {
  switch (fact.kind) {
    case 'ignored':
      return { status: 'ignored', reason: fact.reason };
    case 'payment':
      return fromOutcome(await recordProcessorPayment(store, { programId, ...fact.payment }, now));
    case 'bind':
      return fromOutcome(await bindProcessorCheckout(store, { programId, ...fact.checkout }, now));
    case 'payment_link':
      await linkProcessorInvoicePayment(store, { programId, invoiceId: fact.transactionId, paymentIds: fact.paymentIds });
      return { status: 'processed', reason: `payment ${fact.paymentIds.join(', ')} linked to invoice ${fact.transactionId}` };
    case 'refund': {
      const result = await recordProcessorRefund(store, { programId, ...fact.refund });
      return { status: 'processed', saleId: result.saleId, result: { refunds: result.results } };
    }
    case 'refund_failed': {
      const result = await revertProcessorRefund(store, { programId, ...fact.refund });
      return {
        status: 'processed',
        saleId: result.saleId,
        reason: result.kind === 'reverted' ? 'refund failed: its deduction was given back' : 'refund failed: the sale has no commission',
      };
    }
    case 'dispute': {
      const result = await applyProcessorDispute(store, { programId, ...fact.dispute }, fact.effect);
      const reason = result.kind === 'nothing_to_restore' ? 'nothing to restore' : fact.why;
      return { status: 'processed', saleId: result.saleId, reason, ...(result.results.length ? { result: { refunds: result.results } } : {}) };
    }
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
  const held = new HeldTransaction(deps.pool);
  try {
    const adapter = ADAPTERS[event.processor];
    const fact = adapter.read(payload, { livemode: event.livemode });
    const update = await applyFact(held, event.program_id, fact, deps.now?.() ?? new Date());
    // An attributed checkout or payment binds its processor customer: events waiting for it go now.
    const customer = update.attributionStep ? adapter.customerOf(payload) : null;
    const wake = customer ? { queue: STRIPE_EVENTS_JOB_QUEUE, programId: event.program_id, stripeCustomerId: customer } : null;
    // In the use case's own transaction: the sale and "processed" commit together.
    const woken = await held.finish((db) => finishEvent(db, inboxId, update, wake));
    if (woken.length) log.info({ woken: woken.length }, 'queued events that were waiting for this binding');
    log.info({ processor: event.processor, type: event.type, status: update.status, step: update.attributionStep, saleId: update.saleId, ms: Date.now() - started }, 'processor event processed');
    return update;
  } catch (error) {
    await held.abandon();
    const permanent = permanentFailure(error);
    if (permanent) {
      const update: EventUpdate = { status: 'failed', reason: permanent };
      await finishEvent(deps.pool, inboxId, update);
      log.warn({ processor: event.processor, type: event.type, reason: permanent }, 'processor event failed');
      return update;
    }
    const waiting = error instanceof NotYetResolvable;
    await recordFailedAttempt(deps.pool, inboxId, (error as Error).message, waiting ? 'waiting' : 'error');
    log[waiting ? 'info' : 'error']({ processor: event.processor, type: event.type, err: waiting ? undefined : error, reason: (error as Error).message }, 'processor event will be retried');
    throw error;
  }
}
