// The processors' webhook inbox (Stripe, Paddle, Lemon Squeezy). A stored event and its job are written in one transaction.
import pg from 'pg';
import type { InboxStatus, Waiting } from '../../core/inbox.js';
import { type Wake, wakePayload } from '../../core/intake-rate.js';
import type { ProcessorName } from '../../core/processor-port.js';
import { isRejectedValue } from '../infra/errors.js';
import { insertJobs } from '../infra/job-rows.js';
import { type Pool, type PoolClient } from '../infra/pool.js';
import { prepared } from '../infra/prepared.js';

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

/** The inbox row's columns as the pages, the CLI and the workers read them. */
export const COLUMNS = `id, processor, event_key AS stripe_event_id, endpoint, program_id, account, type, livemode, status, reason, attempts,
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
export async function wakeWorkers(pool: Pool, wake: Wake): Promise<void> {
  // The counts tell the workers what to fetch and how busy the intake is (core/intake-rate.ts).
  await pool.query(prepared('SELECT pg_notify($1, $2)', [PROCESSOR_EVENTS_CHANNEL, wakePayload(wake)]));
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

export async function programByStripeAccount(pool: Pool, account: string): Promise<number | null> {
  const { rows } = await pool.query('SELECT id FROM programs WHERE stripe_account_id = $1', [account]);
  return rows[0]?.id ?? null;
}
