// Job handler: one stored processor event -> its adapter's fact -> one core call -> the inbox row says what happened.
import { PROCESSOR_EVENTS_JOB_QUEUE } from '../core/queue-names.js';
import type PgBoss from 'pg-boss';
import { z } from 'zod';
import { AffixError } from '../core/errors.js';
import {
  NotYetResolvable,
  type ProcessorOutcome,
  bindProcessorCheckout,
  linkProcessorInvoicePayment,
  applyChargebackAdjustment,
  applyProcessorDispute,
  recordProcessorPayment,
  recordProcessorRefund,
  revertProcessorRefund,
} from '../core/processor.js';
import type { Transactions } from '../core/ports.js';
import { DEFAULT_ATTRIBUTION_WAIT_MINUTES, WAIT_FOR_CUSTOMER_DAYS } from '../core/inbox.js';
import type { ProcessorFact } from '../core/processor-port.js';
import { atOnceCount } from '../core/fact-keys.js';
import { ADAPTERS } from '../core/adapters.js';
import { isRejectedValue } from '../db/infra/errors.js';
import { BatchTransaction } from '../db/tracking/batch-transaction.js';
import { HeldTransaction } from '../db/tracking/held-transaction.js';
import type { Pool } from '../db/infra/pool.js';
import { type EventUpdate, type WakeWaiting, finishEvent, finishEvents, recordFailedAttempt } from '../db/inbox/event-outcomes.js';
import { type InboxEvent, loadEventPayload, loadEventPayloads } from '../db/inbox/inbound-events.js';
import type { Logger } from '../platform/logger.js';

export const processorEventJobSchema = z.object({ inboxId: z.number().int().positive() });

export interface WorkerDeps {
  pool: Pool;
  logger: Logger;
  /** Queues events that were waiting for a binding this event made. */
  queue: PgBoss;
  now?: () => Date;
  /** How long a payment waits for its click or lead (AFFIX_ATTRIBUTION_WAIT_MINUTES; default DEFAULT_ATTRIBUTION_WAIT_MINUTES). */
  attributionWaitMinutes?: number;
}

/** What an attempt knows beyond its fact: whether it is the last after a wait, and how long a wait lasts. */
export interface Attempt {
  lastAttempt: boolean;
  waitMinutes: number;
}

const attemptOf = (deps: WorkerDeps, event: InboxEvent): Attempt => ({
  lastAttempt: event.waited === true,
  waitMinutes: deps.attributionWaitMinutes ?? DEFAULT_ATTRIBUTION_WAIT_MINUTES,
});

const FINAL = new Set(['processed', 'ignored', 'failed']);

function fromOutcome(outcome: ProcessorOutcome, attempt: Attempt): EventUpdate {
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
        reason: `no affiliate attribution yet: waiting for a checkout or first sale to bind customer ${outcome.processorCustomerId}`,
        waitingFor: { id: outcome.processorCustomerId, days: WAIT_FOR_CUSTOMER_DAYS },
      };
    case 'waiting_for_attribution':
      return {
        status: 'ignored',
        reason: `no affiliate attribution yet: waiting up to ${attempt.waitMinutes} minutes for a click, lead or customer matching its affix metadata`,
        awaitingAttribution: { ...outcome.keys, seconds: attempt.waitMinutes * 60 },
      };
    case 'unresolved':
      return {
        status: 'ignored',
        reason: outcome.waited
          ? 'no affiliate attribution: no click, lead or customer matched its affix metadata after waiting (no partner)'
          : outcome.referenceOnly
          ? 'no affiliate attribution: client_reference_id matches no customer (an unreferred sale)'
          : 'no affiliate attribution: no click, lead, known customer or customer key matches',
      };
  }
}

/** One fact, one core call (the same for every processor). Returns what to write on the inbox row. */
export async function applyFact(store: Transactions, programId: number, fact: ProcessorFact, now: Date, attempt: Attempt = { lastAttempt: false, waitMinutes: DEFAULT_ATTRIBUTION_WAIT_MINUTES }): Promise<EventUpdate> {
  const options = { lastAttempt: attempt.lastAttempt };
  switch (fact.kind) {
    case 'ignored':
      return { status: 'ignored', reason: fact.reason };
    case 'payment':
      return fromOutcome(await recordProcessorPayment(store, { programId, ...fact.payment }, now, options), attempt);
    case 'bind':
      return fromOutcome(await bindProcessorCheckout(store, { programId, ...fact.checkout }, now, options), attempt);
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
    case 'chargeback_adjustment': {
      const result = await applyChargebackAdjustment(store, { programId, ...fact.adjustment });
      const reason = result.kind === 'counted' ? fact.why : result.kind === 'already_counted' ? 'adjustment already counted' : 'the sale has no commission';
      return { status: 'processed', saleId: result.saleId, reason };
    }
    case 'dispute': {
      const result = await applyProcessorDispute(store, { programId, ...fact.dispute }, fact.effect);
      const reason = result.kind === 'nothing_to_restore' ? 'nothing to restore' : fact.why;
      return { status: 'processed', saleId: result.saleId, reason, ...(result.results.length ? { result: { refunds: result.results } } : {}) };
    }
  }
}

type AttributableEvent = InboxEvent & { program_id: number };

/** The event read as a fact by its processor's adapter. */
const readFact = (event: AttributableEvent, payload: unknown): ProcessorFact => ADAPTERS[event.processor].read(payload, { livemode: event.livemode });

/** The event's fact applied through `store`: its outcome, and the waiting events its binding wakes. */
async function attribute(store: Transactions, event: AttributableEvent, payload: unknown, fact: ProcessorFact, now: Date, attempt: Attempt): Promise<{ update: EventUpdate; wake: WakeWaiting }> {
  const update = await applyFact(store, event.program_id, fact, now, attempt);
  // An attributed checkout or payment binds its processor customer: events waiting for it go
  // now; a sale it recorded, or a payment it linked to a recorded invoice, retries the refunds
  // and disputes that arrived before it.
  const customer = update.attributionStep ? ADAPTERS[event.processor].customerOf(payload) : null;
  const saleId = update.attributionStep ? (update.saleId ?? null) : null;
  const linked = fact.kind === 'payment_link' ? { invoiceId: fact.transactionId, paymentIds: fact.paymentIds } : null;
  // finishEvent writes the outcome alone when none of these is set.
  return { update, wake: { queue: PROCESSOR_EVENTS_JOB_QUEUE, programId: event.program_id, processorCustomerId: customer, saleId, linked } };
}

/** `together`: how many events of its batch were attributed at once with it (none: alone or in the batch's order). */
function logProcessed(log: Logger, event: InboxEvent, update: EventUpdate, woken: number[], ms: number, together?: number): void {
  if (woken.length) log.info({ woken: woken.length }, 'queued events that were waiting for this binding');
  log.info({ processor: event.processor, type: event.type, status: update.status, step: update.attributionStep, saleId: update.saleId, ms, together }, 'processor event processed');
}

/** Events attributed side by side in the batch, their calls sent together; throws what the first that failed threw, once all have settled. */
async function attributeAtOnce(deps: WorkerDeps, batch: BatchTransaction, group: { event: AttributableEvent; payload: unknown }[], facts: ProcessorFact[], now: Date) {
  const stores = batch.atOnce(group.length);
  const settled = await Promise.allSettled(group.map(({ event, payload }, i) => attribute(stores[i]!, event, payload, facts[i]!, now, attemptOf(deps, event))));
  return settled.map((result) => {
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  });
}

export interface QueuedEvent {
  inboxId: number;
  jobId: string;
}

/**
 * A batch of events attributed in one transaction, each with its outcome, and one commit: its
 * leading payments that name nothing in common at once (src/core/fact-keys.ts), the others
 * after them in the order given. Returns the events left to process one by one (`handleProcessorEvent`): all
 * of them when any event fails, retries or is refused (the batch is rolled back: each is then
 * handled, retried or failed alone, exactly as it would have been), and otherwise the rare
 * ones the batch leaves alone (not found, already final, purged, programless, or a second job
 * for an event of the batch).
 */
export async function handleProcessorEventBatch(deps: WorkerDeps, queued: QueuedEvent[]): Promise<QueuedEvent[]> {
  if (queued.length < 2) return queued;
  const loaded = await loadEventPayloads(deps.pool, queued.map((item) => item.inboxId));
  const alone: QueuedEvent[] = [];
  const inBatch = new Set<number>();
  const work: { item: QueuedEvent; event: AttributableEvent; payload: unknown }[] = [];
  for (const item of queued) {
    const row = loaded.get(item.inboxId);
    if (!row || inBatch.has(item.inboxId) || FINAL.has(row.event.status) || row.payload === null || row.event.program_id === null) {
      alone.push(item);
      continue;
    }
    inBatch.add(item.inboxId);
    work.push({ item, event: row.event as AttributableEvent, payload: row.payload });
  }
  const done: { item: QueuedEvent; event: InboxEvent; update: EventUpdate; woken: number[]; together?: number }[] = [];
  let wokenTogether: number[] = [];
  const started = Date.now();
  const now = deps.now?.() ?? new Date();
  const batch = new BatchTransaction(deps.pool);
  try {
    const facts = work.map(({ event, payload }) => readFact(event, payload));
    // The leading payments that name nothing in common go at once (their statements sent
    // together); the rest follow one after another, in the batch's order.
    const together = atOnceCount(facts);
    const first = together > 1 ? together : 0;
    if (first) {
      const group = work.slice(0, together);
      const attributed = await attributeAtOnce(deps, batch, group, facts, now);
      // Their outcomes in one statement too (and what any of them made findable, woken).
      wokenTogether = await batch.write((client) => finishEvents(client, group.map(({ item }, i) => ({ id: item.inboxId, ...attributed[i]! }))));
      group.forEach(({ item, event }, i) => done.push({ item, event, update: attributed[i]!.update, woken: [], together }));
    }
    for (let i = first; i < work.length; i++) {
      const { item, event, payload } = work[i]!;
      const { update, wake } = await attribute(batch, event, payload, facts[i]!, now, attemptOf(deps, event));
      // When the core caught an error of its own (a sale outside the window, a duplicate), it
      // expected its writes rolled back: the batch is spoiled, and this write throws.
      const woken = await batch.write((client) => finishEvent(client, item.inboxId, update, wake));
      done.push({ item, event, update, woken });
    }
    await batch.commit();
  } catch (error) {
    await batch.rollback();
    deps.logger.info({ jobs: queued.length, reason: (error as Error).message }, 'batch rolled back: its events are processed one by one');
    return queued;
  }
  const ms = Date.now() - started;
  if (wokenTogether.length) deps.logger.info({ woken: wokenTogether.length }, 'queued events that were waiting for what the events attributed at once bound');
  for (const { item, event, update, woken, together } of done) logProcessed(deps.logger.child({ jobId: item.jobId, inboxId: item.inboxId }), event, update, woken, ms, together);
  return alone;
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
export async function handleProcessorEvent(deps: WorkerDeps, inboxId: number, jobId = ''): Promise<EventUpdate | null> {
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
    const attributable = event as AttributableEvent;
    const { update, wake } = await attribute(held, attributable, payload, readFact(attributable, payload), deps.now?.() ?? new Date(), attemptOf(deps, event));
    // In the use case's own transaction: the sale and "processed" commit together.
    const woken = await held.finish((db) => finishEvent(db, inboxId, update, wake));
    logProcessed(log, event, update, woken, Date.now() - started);
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
    const awaiting = waiting && error.awaitingSale.length ? { saleIds: error.awaitingSale, jobId } : null;
    await recordFailedAttempt(deps.pool, inboxId, (error as Error).message, waiting ? 'waiting' : 'error', awaiting);
    log[waiting ? 'info' : 'error']({ processor: event.processor, type: event.type, err: waiting ? undefined : error, reason: (error as Error).message }, 'processor event will be retried');
    throw error;
  }
}
