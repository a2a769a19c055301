// What became of an inbox event: its outcome written, what waited for it woken, attempts counted.
import pg from 'pg';
import type { InboxStatus, Waiting } from '../../core/inbox.js';
import { insertJobs, notifyIfJobs } from '../infra/job-rows.js';
import { type Pool, type PoolClient, withTransaction } from '../infra/pool.js';
import { prepared } from '../infra/prepared.js';
import { type Column, columnValues, unnestRows } from '../infra/row-sets.js';
import { attributionWaitKeys } from '../tracking/attribution-waits.js';
import { type EnqueueInTransaction, type InboxJobQueue, PROCESSOR_EVENTS_CHANNEL } from './inbound-events.js';

export interface EventUpdate {
  status: InboxStatus;
  reason?: string | null;
  attributionStep?: string | null;
  saleId?: number | null;
  result?: Record<string, unknown>;
  /** Ignored for now: queued again when this is bound (see wakeWaitingEvents). */
  waitingFor?: Waiting | null;
  /**
   * Ignored for now, no job: waits for a customer with one of these keys (due at once when one is
   * recorded) or `seconds` (then due anyway): queued once more by queueDueEvents. Counts as an attempt.
   */
  awaitingAttribution?: AwaitingAttribution | null;
}

export interface AwaitingAttribution {
  clickId: string | null;
  customerKey: string | null;
  /** The email's SHA-256 (customers.email_hash). */
  emailHash: Buffer | null;
  processorCustomerId: string | null;
  seconds: number;
}

/**
 * An outcome's columns, set from the SQL given for each value (a replayed event keeps the step
 * and sale it recorded). `dueAt`: when an event waiting for its attribution is due (else NULL);
 * that wait counts as an attempt.
 */
const finishSet = (v: { status: string; reason: string; step: string; saleId: string; result: string; waitingFor: string; waitDays: string; dueAt?: string }) =>
  `status = ${v.status}, reason = ${v.reason}, attribution_step = coalesce(${v.step}, attribution_step),
   sale_id = coalesce(${v.saleId}, sale_id), result = ${v.result}, waiting_for = ${v.waitingFor},
   wait_until = ${v.dueAt ? `coalesce(now() + make_interval(days => ${v.waitDays}), ${v.dueAt})` : `now() + make_interval(days => ${v.waitDays})`},
   ${v.dueAt ? `attempts = attempts + (${v.dueAt} IS NOT NULL)::int, ` : ''}updated_at = now()`;

const FINISH = `UPDATE webhook_events SET ${finishSet({ status: '$2', reason: '$3', step: '$4', saleId: '$5', result: '$6', waitingFor: '$7', waitDays: '$8' })}
  WHERE id = $1`;

const REQUEUE_WAITING = `status = 'queued', reason = NULL, attempts = 0, result = '{}', waiting_for = NULL, wait_until = NULL, updated_at = now()`;

/**
 * What the event just made findable in its program: a processor customer it bound (events waiting
 * for it go back on the queue) and a sale it recorded (events retrying until their sale exists,
 * a refund or dispute delivered first, are retried now instead of at their next back-off).
 */
export interface WakeWaiting {
  queue: InboxJobQueue;
  programId: number;
  processorCustomerId: string | null;
  saleId?: number | null;
  /** Payments just linked to an invoice: a refund naming one finds the invoice's sale now, when it is recorded. */
  linked?: { invoiceId: string; paymentIds: string[] } | null;
}

/** The ids an event may look the sale up by (findSaleByPayment): its transaction, its payments, the payments linked to its invoice. */
const SALE_KEYS = `array_remove(ARRAY[s.processor_event_id, s.provider_payment_id], NULL)
        || ARRAY(SELECT jsonb_array_elements_text(CASE WHEN jsonb_typeof(s.details -> 'payment_ids') = 'array' THEN s.details -> 'payment_ids' ELSE '[]' END))
        || ARRAY(SELECT l.payment_id FROM processor_payment_links l WHERE l.program_id = s.program_id AND l.invoice_id = s.processor_event_id)`;

/**
 * Writes the event's outcome (a replayed event that finds its sale already recorded keeps the
 * step and sale it recorded). With `wake`, the same statement wakes what was waiting for what
 * this event made findable (see WakeWaiting; it usually finds nothing, and then writes nothing
 * more). Returns the ids queued again.
 */
export async function finishEvent(pool: Pool | PoolClient, id: number, update: EventUpdate, wake: WakeWaiting | null = null): Promise<number[]> {
  if (!wake || (!wake.processorCustomerId && !wake.saleId && !wake.linked && !update.awaitingAttribution)) {
    await pool.query(
      prepared(FINISH, [id, update.status, storable(update.reason), update.attributionStep ?? null, update.saleId ?? null,
        storable(JSON.stringify(update.result ?? {})), update.waitingFor?.id ?? null, update.waitingFor?.days ?? null]),
    );
    return [];
  }
  return finishEvents(pool, [{ id, update, wake }]);
}

export interface FinishedEvent {
  id: number;
  update: EventUpdate;
  wake: WakeWaiting;
}

/** One finished event's outcome and wake, a row of finishEvents' input. */
const FINISHED_INPUT: readonly Column<FinishedEvent>[] = [
  ['id', 'bigint', (e) => e.id],
  ['status', 'text', (e) => e.update.status],
  ['reason', 'text', (e) => storable(e.update.reason)],
  ['step', 'text', (e) => e.update.attributionStep ?? null],
  ['outcome_sale_id', 'bigint', (e) => e.update.saleId ?? null],
  ['result', 'jsonb', (e) => storable(JSON.stringify(e.update.result ?? {}))],
  ['waiting_for', 'text', (e) => e.update.waitingFor?.id ?? null],
  ['wait_days', 'integer', (e) => e.update.waitingFor?.days ?? null],
  ['program_id', 'bigint', (e) => e.wake.programId],
  ['customer', 'text', (e) => e.wake.processorCustomerId],
  ['recorded_sale_id', 'bigint', (e) => e.wake.saleId ?? null],
  ['linked_invoice', 'text', (e) => e.wake.linked?.invoiceId ?? null],
  ['linked_payments', 'jsonb', (e) => JSON.stringify(e.wake.linked?.paymentIds ?? [])],
  ['wait_seconds', 'integer', (e) => e.update.awaitingAttribution?.seconds ?? null],
  ['wait_click_id', 'text', (e) => e.update.awaitingAttribution?.clickId ?? null],
  ['wait_customer_key', 'text', (e) => e.update.awaitingAttribution?.customerKey ?? null],
  ['wait_email_hash', 'text', (e) => e.update.awaitingAttribution?.emailHash?.toString('hex') ?? null],
  ['wait_processor_customer', 'text', (e) => e.update.awaitingAttribution?.processorCustomerId ?? null],
];

/**
 * When an event that starts waiting for its attribution is due: after its wait, or now when a
 * customer with one of its keys is already there (a lead committed while it was attempted).
 */
const ATTRIBUTION_DUE_AT = `CASE WHEN i.wait_seconds IS NULL THEN NULL
         WHEN EXISTS (SELECT 1 FROM customers c WHERE c.program_id = i.program_id AND c.customer_key = i.wait_customer_key)
           OR EXISTS (SELECT 1 FROM customers c WHERE c.program_id = i.program_id AND c.email_hash = decode(i.wait_email_hash, 'hex'))
           OR EXISTS (SELECT 1 FROM customers c WHERE c.program_id = i.program_id AND c.click_id = i.wait_click_id)
           OR EXISTS (SELECT 1 FROM customers c WHERE c.program_id = i.program_id AND c.processor_customer_id = i.wait_processor_customer) THEN now()
         ELSE now() + make_interval(secs => i.wait_seconds) END`;

/**
 * Events' outcomes (as finishEvent) in one statement, with what each made findable woken: the
 * events waiting for a processor customer one bound go back on the queue, and the refunds and
 * disputes waiting for a sale one recorded (or for an invoice's sale its link makes findable) are
 * retried now. A payment that starts waiting for its attribution leaves its keys in
 * event_waiters. All of one queue. Returns the ids queued again.
 */
export async function finishEvents(pool: Pool | PoolClient, events: readonly FinishedEvent[]): Promise<number[]> {
  if (events.length === 0) return [];
  const queue = events[0]!.wake.queue;
  const params: unknown[] = columnValues(FINISHED_INPUT, events);
  const queueName = `$${params.push(queue.name)}`;
  const channel = `$${params.push(PROCESSOR_EVENTS_CHANNEL)}`;
  const { rows } = await pool.query(
    prepared(
      `WITH input AS (SELECT t.* FROM ${unnestRows(FINISHED_INPUT)}),
       finished AS (
         UPDATE webhook_events w
            SET ${finishSet({ status: 'i.status', reason: 'i.reason', step: 'i.step', saleId: 'i.outcome_sale_id', result: 'i.result', waitingFor: 'i.waiting_for', waitDays: 'i.wait_days', dueAt: ATTRIBUTION_DUE_AT })}
           FROM input i WHERE w.id = i.id
       ), awaiting AS (
         INSERT INTO event_waiters (program_id, wait_key, inbox_id)
         SELECT DISTINCT i.program_id, k.key, i.id
           FROM input i CROSS JOIN LATERAL unnest(${attributionWaitKeys({ clickId: 'i.wait_click_id', customerKey: 'i.wait_customer_key', emailHashHex: 'i.wait_email_hash', processorCustomerId: 'i.wait_processor_customer' })}) AS k (key)
          WHERE i.wait_seconds IS NOT NULL AND k.key IS NOT NULL
         ON CONFLICT (program_id, wait_key, inbox_id) DO NOTHING
       ), woken AS (
         UPDATE webhook_events w SET ${REQUEUE_WAITING}
           FROM input i
          WHERE i.customer IS NOT NULL AND w.waiting_for = i.customer AND w.program_id = i.program_id AND w.status = 'ignored'
            AND w.wait_until > now() AND w.id NOT IN (SELECT id FROM input)
            AND EXISTS (SELECT 1 FROM customers c WHERE c.program_id = i.program_id AND c.processor_customer_id = i.customer)
         RETURNING w.id
       ), job AS (${insertJobs({ schema: queue.schema, queue: queueName, data: "jsonb_build_object('inboxId', woken.id)", from: 'woken' })}),
       -- The ids now findable: those of each sale recorded, and payments linked to an invoice already recorded as a sale.
       findable AS (
         SELECT i.program_id, k.key FROM input i JOIN sales s ON s.id = i.recorded_sale_id AND s.program_id = i.program_id,
                LATERAL unnest(${SALE_KEYS}) AS k (key)
         UNION ALL
         SELECT i.program_id, p.key FROM input i, LATERAL jsonb_array_elements_text(i.linked_payments) AS p (key)
          WHERE i.linked_invoice IS NOT NULL
            AND EXISTS (SELECT 1 FROM sales s WHERE s.account_id = (SELECT account_id FROM programs WHERE id = i.program_id)
                                               AND s.processor_event_id = i.linked_invoice AND s.program_id = i.program_id)
       ), waiters AS (
         -- Every waiter row of the events one of those ids matches (the others name ids not findable yet).
         DELETE FROM event_waiters sw
          WHERE (sw.program_id, sw.inbox_id) IN (SELECT m.program_id, m.inbox_id FROM event_waiters m JOIN findable f ON m.program_id = f.program_id AND m.wait_key = f.key)
         RETURNING sw.retry_job
       ), retried AS (
         UPDATE ${pg.escapeIdentifier(queue.schema)}.job j SET start_after = now()
          WHERE j.name = ${queueName} AND j.id IN (SELECT retry_job FROM waiters) AND j.state = 'retry' AND j.start_after > now()
         RETURNING j.id
       )
       SELECT woken.id, ${notifyIfJobs(channel)} AS wake FROM woken`,
      params,
    ),
  );
  return rows.map((row) => Number(row.id));
}

/**
 * Events waiting for a processor customer or Connect account that is now bound go back on the
 * queue (a Connect event gets its program), each with its job, in one transaction. Every
 * worker runs it on a timer: it catches an event that started waiting while its binding
 * committed, and Connect accounts bound through the API. Waits that ran out are closed.
 * Returns the ids queued.
 */
export async function wakeWaitingEvents(pool: Pool, enqueue: EnqueueInTransaction): Promise<number[]> {
  return withTransaction(pool, async (client) => {
    await client.query(
      `UPDATE webhook_events SET waiting_for = NULL, wait_until = NULL WHERE waiting_for IS NOT NULL AND wait_until <= now()`,
    );
    const byCustomer = await client.query(
      `UPDATE webhook_events w SET ${REQUEUE_WAITING}
         FROM customers c
        WHERE w.waiting_for IS NOT NULL AND w.status = 'ignored' AND w.program_id IS NOT NULL
          AND c.program_id = w.program_id AND c.processor_customer_id = w.waiting_for
       RETURNING w.id`,
    );
    const byAccount = await client.query(
      `UPDATE webhook_events w SET ${REQUEUE_WAITING}, program_id = p.id
         FROM programs p
        WHERE w.waiting_for IS NOT NULL AND w.status = 'ignored' AND w.program_id IS NULL
          AND p.stripe_account_id = w.waiting_for
       RETURNING w.id`,
    );
    const ids = [...byCustomer.rows, ...byAccount.rows].map((row) => Number(row.id));
    for (const inboxId of ids) await enqueue(client, { inboxId });
    return ids;
  });
}

/**
 * The due-check: payments waiting for their attribution whose time came (a customer with one of
 * their keys was recorded, or their wait ran out at `now`) go back on the queue, each with its
 * job, at most `limit` at a time, and marked `waited`: that attempt is their last. Their waiter
 * rows go. Every worker runs it on its sweep; returns the ids queued.
 */
export async function queueDueEvents(pool: Pool, queue: InboxJobQueue, now: Date, limit = 1_000): Promise<number[]> {
  const { rows } = await pool.query(
    prepared(
      `WITH due AS (
         SELECT id FROM webhook_events
          WHERE status = 'ignored' AND waiting_for IS NULL AND wait_until IS NOT NULL AND wait_until <= $1
          ORDER BY wait_until LIMIT $2 FOR UPDATE SKIP LOCKED
       ), queued AS (
         UPDATE webhook_events w SET status = 'queued', reason = NULL, result = '{}', wait_until = NULL, waited = true, updated_at = now()
           FROM due WHERE w.id = due.id
         RETURNING w.id
       ), unwaited AS (
         -- By the inbox id's index (an IN join was planned as a scan of the whole table).
         DELETE FROM event_waiters WHERE inbox_id = ANY (ARRAY(SELECT id FROM queued))
       ), job AS (${insertJobs({ schema: queue.schema, queue: '$3', data: "jsonb_build_object('inboxId', queued.id)", from: 'queued' })})
       SELECT queued.id, ${notifyIfJobs('$4')} AS wake FROM queued`,
      [now, limit, queue.name, PROCESSOR_EVENTS_CHANNEL],
    ),
  );
  return rows.map((row) => Number(row.id));
}

/**
 * Reasons may quote values from the event (a metadata field, a type): whatever text PostgreSQL
 * cannot store (NUL, unpaired surrogates) is replaced so that the outcome is always recorded.
 */
function storable(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  return text.replace(/\u0000|\\u(0000|d[89a-f][0-9a-f]{2})/gi, '\uFFFD').toWellFormed();
}

/** One failed attempt: `waiting` failures end parked, others dead, when retries run out. */
export async function recordFailedAttempt(pool: Pool, id: number, reason: string, kind: 'waiting' | 'error', awaiting: AwaitingSale | null = null): Promise<void> {
  const params = [id, storable(reason), kind];
  const failed = `UPDATE webhook_events SET status = 'retrying', reason = $2, attempts = attempts + 1,
            result = jsonb_build_object('last_failure', $3::text), updated_at = now()
      WHERE id = $1 RETURNING program_id`;
  if (!awaiting?.saleIds.length || !UUID.test(awaiting.jobId)) {
    await pool.query(failed, params);
    return;
  }
  await pool.query(
    `WITH failed AS (${failed})
     INSERT INTO event_waiters (program_id, wait_key, inbox_id, retry_job)
     SELECT DISTINCT failed.program_id, k, $1::bigint, $5::uuid FROM failed, unnest($4::text[]) k WHERE failed.program_id IS NOT NULL
     ON CONFLICT (program_id, wait_key, inbox_id) DO UPDATE SET retry_job = EXCLUDED.retry_job`,
    [...params, awaiting.saleIds, awaiting.jobId],
  );
}

/** An event that waits for its sale: the ids it looks the sale up by, and the pg-boss job that retries it. */
export interface AwaitingSale {
  saleIds: string[];
  jobId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function markExhausted(pool: Pool, id: number): Promise<void> {
  await pool.query(
    `WITH waited AS (DELETE FROM event_waiters WHERE inbox_id = $1)
     UPDATE webhook_events
        SET status = CASE WHEN result ->> 'last_failure' = 'waiting' THEN 'parked' ELSE 'dead' END, updated_at = now()
      WHERE id = $1 AND status = 'retrying'`,
    [id],
  );
}
