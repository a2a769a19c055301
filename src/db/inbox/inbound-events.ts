// The processors' webhook inbox (Stripe, Paddle, Lemon Squeezy). A stored event and its job are written in one transaction.
import pg from 'pg';
import { AffixError } from '../../core/errors.js';
import type { InboxStatus, Waiting } from '../../core/inbox.js';
import type { ProcessorName } from '../../core/processor-port.js';
import { isRejectedValue } from '../infra/errors.js';
import { insertJobs, notifyIfJobs } from '../infra/job-rows.js';
import { type Pool, type PoolClient, withTransaction } from '../infra/pool.js';
import { prepared } from '../infra/prepared.js';
import { type Column, columnValues, unnestRows } from '../infra/row-sets.js';
import { attributionWaitKeys } from '../tracking/attribution-waits.js';

/**
 * Puts an inbox row's job on the queue inside the caller's transaction (the queue's tables live
 * in the same database), so a row and its job exist together or not at all.
 */
export type EnqueueInTransaction = (client: PoolClient, job: { inboxId: number }) => Promise<unknown>;

export { INBOX_STATUSES, type InboxStatus } from '../../core/inbox.js';

export interface NewInboxEvent {
  eventKey: string;
  endpoint: 'program' | 'connect';
  programId: number | null;
  account: string | null;
  type: string;
  livemode: boolean;
  apiVersion: string | null;
  /** The signed bytes: PostgreSQL parses them into the jsonb payload; kept as bytes when jsonb cannot hold them. */
  rawBody: Buffer;
  /** queued events get a job; ignored ones are only recorded, with their reason; processed ones were applied by the intake itself. */
  status: 'queued' | 'ignored' | 'processed';
  reason: string | null;
  /** The processor's objects the event names, for support's look-ups. */
  objectIds: string[];
  /** Ignored until this (a Connect account) is bound: then routed and queued. */
  waitingFor: Waiting | null;
}

export interface InboxEvent {
  id: number;
  /** Which processor sent it (from its event id's namespace, migration 0029). */
  processor: ProcessorName;
  /**
   * The event's key in the inbox: the processor's event id, namespaced for processors other than
   * Stripe (column event_key). The admin API answers it under its first name, which clients read.
   */
  stripe_event_id: string;
  endpoint: string;
  program_id: number | null;
  account: string | null;
  type: string;
  livemode: boolean;
  status: InboxStatus;
  reason: string | null;
  attempts: number;
  attribution_step: string | null;
  sale_id: number | null;
  result: Record<string, unknown>;
  received_at: Date;
  updated_at: Date;
  /** The payload was purged after the retention period (the row stays; replay is no longer possible). */
  purged_at: Date | null;
  object_ids: string[];
  /** Ignored for now: re-examined when this processor customer or Connect account is bound. */
  waiting_for: string | null;
  wait_until: Date | null;
  /** Queued again after waiting for its attribution: its next unmatched attempt is its last (read by the workers' load only). */
  waited?: boolean;
}

const COLUMNS = `id, processor, event_key AS stripe_event_id, endpoint, program_id, account, type, livemode, status, reason, attempts,
  attribution_step, sale_id, result, received_at, updated_at, purged_at, object_ids, waiting_for, wait_until`;

/** Stores the event and enqueues its job atomically. A redelivery (same event key) changes nothing. */
export interface StoredEvent {
  id: number;
  duplicate: boolean;
  status: InboxStatus;
}

/** Workers LISTEN here; an inbox row's commit wakes them instead of their next poll. */
export const PROCESSOR_EVENTS_CHANNEL = 'affix_processor_events';

/** The job row pg-boss itself would write for this queue (its policy read from pgboss.queue). */
export interface InboxJobQueue {
  schema: string;
  name: string;
}

export async function storeEvent(pool: Pool, queue: InboxJobQueue, event: NewInboxEvent): Promise<StoredEvent> {
  try {
    return await insertEvent(pool, queue, event, false);
  } catch (error) {
    // jsonb refused the payload (NUL, unpaired surrogate, nesting): keep the signed bytes instead.
    if (!isRejectedValue(error)) throw error;
    return insertEvent(pool, queue, event, true);
  }
}

/**
 * Wakes the listening workers. Sent after the inbox rows committed, never inside their
 * statement: a NOTIFY holds a database-wide lock from its statement through commit, so a burst's
 * commits would queue behind each other's page writes. A lost wake-up costs a poll (the fallback).
 */
export async function wakeWorkers(pool: Pool, events: number): Promise<void> {
  // The count tells the workers how fast the intake is storing (core/intake-rate.ts).
  await pool.query(prepared('SELECT pg_notify($1, $2)', [PROCESSOR_EVENTS_CHANNEL, String(events)]));
}

/**
 * The intake's one statement: $1–$14 the inbox row, $15 the queue.
 * Exported for `npm run bench:webhooks`, whose pgbench ceiling runs this very text.
 *
 * The event's key goes first, into webhook_event_keys (migration 0039), which only the intake
 * writes: a redelivery conflicts there, never on the inbox row itself, which a worker's batch
 * may have updated and not yet committed (an INSERT meeting such a row waits for its
 * transaction). A conflict waits at most for another delivery of the same event to commit.
 */
export const storeEventStatement = (jobSchema: string) => `WITH key AS (
       INSERT INTO webhook_event_keys (event_key) VALUES ($1)
       ON CONFLICT (event_key) DO NOTHING
       RETURNING event_key
     ), event AS (
       INSERT INTO webhook_events (event_key, endpoint, program_id, account, type, livemode, api_version, payload, raw_body, status, reason,
                                   object_ids, waiting_for, wait_until)
       SELECT key.event_key, $2::text, $3::bigint, $4::text, $5::text, $6::boolean, $7::text, $8::jsonb, $9::bytea, $10::text, $11::text,
              $12::text[], $13::text, now() + make_interval(days => $14::int)
         FROM key
       -- An inbox row without a key (stored by a version before migration 0039 while it ran beside
       -- this one) is a redelivery too: answered as one, never an error. The normal path never conflicts here.
       ON CONFLICT (event_key) DO NOTHING
       RETURNING id, status
     ), job AS (
       ${insertJobs({ schema: jobSchema, queue: '$15', data: "jsonb_build_object('inboxId', event.id)", from: 'event', where: "event.status = 'queued'" })}
     )
     SELECT event.id, event.status
       FROM event`;

/**
 * One statement, one round trip, one commit: the inbox row and its pg-boss job (same columns and
 * policy as pg-boss's own insert, see test/stripe-intake-statement.test.ts) exist together or
 * not at all. The workers are woken after the commit (InboxWriter, wakeWorkers).
 */
async function insertEvent(pool: Pool, queue: InboxJobQueue, event: NewInboxEvent, rawOnly: boolean): Promise<StoredEvent> {
  // The verified body itself becomes the jsonb payload: no second serialization in the API.
  const asJson = rawOnly ? null : event.rawBody.toString('utf8');
  const { rows } = await pool.query(prepared(
    storeEventStatement(queue.schema),
    [event.eventKey, event.endpoint, event.programId, event.account, event.type, event.livemode, event.apiVersion,
      asJson, rawOnly ? event.rawBody : null, event.status, event.reason, event.objectIds, event.waitingFor?.id ?? null,
      event.waitingFor?.days ?? null, queue.name],
  ));
  if (rows[0]) return { id: rows[0].id, duplicate: false, status: rows[0].status };
  // A redelivery (or the same event arriving twice at once: the conflict waited for the first to
  // commit). A plain read: it never waits, even on a worker's batch updating the row.
  const existing = await pool.query('SELECT id, status FROM webhook_events WHERE event_key = $1', [event.eventKey]);
  return { id: existing.rows[0].id, duplicate: true, status: existing.rows[0].status };
}

/**
 * Many events in one statement, one commit: $1–$7 and $9–$13 one array entry per event, $8 the
 * payloads as one JSON array (the verified bodies, spliced: no re-serialization), $14 the queue.
 * Same rows and jobs as the one-event statement, the keys first in the same way (an event twice
 * in the batch: its first). Keys are inserted in their own order, so two statements that share
 * events wait for each other one way only (never a deadlock); inbox ids follow arrival.
 */
const STORE_EVENTS = (jobSchema: string) => `WITH input AS (
       SELECT i.*, p.payload
         FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::boolean[], $7::text[], $9::text[], $10::text[],
                     $11::text[], $12::text[], $13::int[]) WITH ORDINALITY
              AS i (event_key, endpoint, program_id, account, type, livemode, api_version, status, reason, object_ids, waiting_for,
                    wait_days, n)
         JOIN jsonb_array_elements($8::jsonb) WITH ORDINALITY AS p (payload, n) ON p.n = i.n
     ), first AS (
       SELECT DISTINCT ON (event_key) * FROM input ORDER BY event_key, n
     ), key AS (
       INSERT INTO webhook_event_keys (event_key)
       SELECT event_key FROM first ORDER BY event_key
       ON CONFLICT (event_key) DO NOTHING
       RETURNING event_key
     ), event AS (
       INSERT INTO webhook_events (event_key, endpoint, program_id, account, type, livemode, api_version, payload, status, reason,
                                   object_ids, waiting_for, wait_until)
       SELECT event_key, endpoint, program_id, account, type, livemode, api_version, payload, status, reason,
              ARRAY(SELECT jsonb_array_elements_text(object_ids::jsonb)), waiting_for,
              now() + make_interval(days => wait_days)
         FROM first JOIN key USING (event_key) ORDER BY n
       ON CONFLICT (event_key) DO NOTHING
       RETURNING id, status, event_key
     ), job AS (
       ${insertJobs({ schema: jobSchema, queue: '$14', data: "jsonb_build_object('inboxId', event.id)", from: 'event', where: "event.status = 'queued'" })}
     )
     SELECT event.id, event.status, event.event_key
       FROM event`;

/**
 * Stores events together (see InboxWriter), each answered as storeEvent would: its row, or the
 * row already stored under its event key (a redelivery, or the same id twice in the batch).
 * Throws for the whole batch when any payload is refused: the caller stores them one by one.
 */
export async function storeEvents(pool: Pool, queue: InboxJobQueue, events: NewInboxEvent[]): Promise<StoredEvent[]> {
  const column = <T>(pick: (event: NewInboxEvent) => T) => events.map(pick);
  const { rows } = await pool.query(prepared(STORE_EVENTS(queue.schema), [
    column((e) => e.eventKey), column((e) => e.endpoint), column((e) => e.programId), column((e) => e.account),
    column((e) => e.type), column((e) => e.livemode), column((e) => e.apiVersion),
    `[${events.map((e) => e.rawBody.toString('utf8')).join(',')}]`,
    column((e) => e.status), column((e) => e.reason), column((e) => JSON.stringify(e.objectIds)), column((e) => e.waitingFor?.id ?? null),
    column((e) => e.waitingFor?.days ?? null),
    queue.name,
  ]));
  const written = new Map<string, StoredEvent>(rows.map((row) => [row.event_key, { id: Number(row.id), duplicate: false, status: row.status }]));
  const answers: (StoredEvent | null)[] = events.map((event) => {
    const stored = written.get(event.eventKey);
    if (!stored) return null;
    written.delete(event.eventKey); // the same id again in this batch is a redelivery
    return stored;
  });
  const missing = events.filter((_, i) => answers[i] === null).map((event) => event.eventKey);
  if (missing.length) {
    const existing = await pool.query('SELECT id, status, event_key FROM webhook_events WHERE event_key = ANY ($1::text[])', [missing]);
    const byId = new Map(existing.rows.map((row) => [row.event_key, { id: Number(row.id), duplicate: true, status: row.status }]));
    events.forEach((event, i) => (answers[i] ??= byId.get(event.eventKey) ?? null));
  }
  return answers.map((answer, i) => {
    if (!answer) throw new Error(`inbox row for ${events[i]!.eventKey} neither written nor found`);
    return answer;
  });
}

export async function loadEventPayload(pool: Pool, id: number): Promise<{ event: InboxEvent; payload: any } | null> {
  return (await loadEventPayloads(pool, [id])).get(id) ?? null;
}

/** Several inbox rows in one round trip (a worker's batch), by id; ids not found are absent. */
export async function loadEventPayloads(pool: Pool, ids: number[]): Promise<Map<number, { event: InboxEvent; payload: any }>> {
  const { rows } = await pool.query(prepared(`SELECT ${COLUMNS}, waited, payload, raw_body FROM webhook_events WHERE id = ANY($1::bigint[])`, [ids]));
  return new Map(
    rows.map(({ payload, raw_body: rawBody, ...event }) => [Number(event.id), { event, payload: payload ?? (rawBody ? JSON.parse((rawBody as Buffer).toString('utf8')) : null) }]),
  );
}

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

export interface EventFilter {
  status?: InboxStatus;
  programId?: number;
  /** A Stripe event id (evt_) or an id of an object the event names (cs_, in_, ch_, pi_, du_, re_, cus_, sub_). */
  stripeId?: string;
  processor?: ProcessorName;
  limit: number;
}

export async function listEvents(pool: Pool, filter: EventFilter): Promise<InboxEvent[]> {
  const { rows } = await pool.query(
    `SELECT ${COLUMNS} FROM webhook_events
      WHERE ($1::text IS NULL OR status = $1) AND ($2::bigint IS NULL OR program_id = $2)
        AND ($4::text IS NULL OR event_key = $4 OR object_ids @> ARRAY[$4::text]) AND ($5::text IS NULL OR processor = $5)
      ORDER BY id DESC LIMIT $3`,
    [filter.status ?? null, filter.programId ?? null, filter.limit, filter.stripeId ?? null, filter.processor ?? null],
  );
  return rows;
}

/** The event with what support asks next: its sale's commission, or why it has none. */
export interface InboxEventDetail extends InboxEvent {
  /** What the partner earns from the sale now, and the commission's state (the commission_states view). */
  commission_cents: number | null;
  /** The sale's currency: commission_cents is in its minor unit. */
  commission_currency: string | null;
  commission_state: string | null;
  commission_reason: string | null;
}

const COLUMNS_OF_W = COLUMNS.split(',').map((column) => `w.${column.trim()}`).join(', ');

/** By inbox id, or by event key (a Stripe evt_ id, or a namespaced one). */
export async function getEvent(pool: Pool, ref: number | string): Promise<InboxEventDetail | null> {
  const { rows } = await pool.query(
    `SELECT ${COLUMNS_OF_W},
            c.earned_cents AS commission_cents, CASE WHEN c.id IS NOT NULL THEN s.currency END AS commission_currency,
            c.state AS commission_state, s.commission_reason
       FROM webhook_events w
       LEFT JOIN sales s ON s.id = w.sale_id
       LEFT JOIN commission_states c ON c.sale_id = s.id
      WHERE ${typeof ref === 'number' ? 'w.id = $1' : 'w.event_key = $1'}`,
    [ref],
  );
  return rows[0] ?? null;
}

/** Puts a stored event back on the queue (replay), in one transaction with its new job. */
export async function requeueEvent(pool: Pool, enqueue: EnqueueInTransaction, id: number): Promise<InboxEvent | null> {
  return withTransaction(pool, async (client) => {
    // A replayed event starts afresh: it may wait for its attribution once more.
    await client.query('DELETE FROM event_waiters WHERE inbox_id = $1', [id]);
    const { rows } = await client.query(
      `UPDATE webhook_events
          SET status = 'queued', reason = NULL, attempts = 0, result = '{}', waiting_for = NULL, wait_until = NULL, waited = false, updated_at = now(),
              -- A Connect event replayed after its account was bound goes to that program.
              program_id = coalesce(program_id, (SELECT p.id FROM programs p WHERE p.stripe_account_id = webhook_events.account))
        WHERE id = $1 AND purged_at IS NULL RETURNING ${COLUMNS}`,
      [id],
    );
    if (!rows[0]) {
      const purged = await client.query('SELECT 1 FROM webhook_events WHERE id = $1 AND purged_at IS NOT NULL', [id]);
      if (purged.rowCount) throw new AffixError(409, 'This event cannot be replayed: its payload was purged after the retention period');
      return null;
    }
    await enqueue(client, { inboxId: id });
    return rows[0];
  });
}

export async function programByStripeAccount(pool: Pool, account: string): Promise<number | null> {
  const { rows } = await pool.query('SELECT id FROM programs WHERE stripe_account_id = $1', [account]);
  return rows[0]?.id ?? null;
}

/**
 * Privacy: payloads of final events older than the retention period are dropped (customers'
 * emails and names live there); the row keeps what support needs. In batches, any instance.
 */
export async function purgeExpiredPayloads(pool: Pool, retentionDays: number, batch = 1_000): Promise<number> {
  const { rowCount } = await pool.query(
    `UPDATE webhook_events SET payload = NULL, raw_body = NULL, purged_at = now()
      WHERE id IN (SELECT id FROM webhook_events
                    WHERE purged_at IS NULL AND received_at < now() - make_interval(days => $1)
                      AND status IN ('processed', 'ignored', 'failed')
                    ORDER BY received_at LIMIT $2)`,
    [retentionDays, batch],
  );
  return rowCount ?? 0;
}
