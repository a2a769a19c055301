// Outbound webhooks' messages and deliveries. A message is written in the transaction of the
// change it tells of, with one delivery (and its job) per listening endpoint.
import type { OutboundEvent } from '../../core/outbound-events.js';
import { JOB_SCHEMA, type JobQueue, OUTBOUND_QUEUE } from '../../core/queue-names.js';
import { insertJobs, notifyIfJobs } from '../infra/job-rows.js';
import type { PoolClient } from '../infra/pool.js';
import { prepared } from '../infra/prepared.js';

/** Where the delivery jobs go: pg-boss's schema and the deliveries' queue. */
export type OutboundQueue = JobQueue;
export const DEFAULT_OUTBOUND_QUEUE: OutboundQueue = { schema: JOB_SCHEMA, name: OUTBOUND_QUEUE };

/**
 * A commission's event carries the commission's one `state` as the commission_states view reads
 * it once the change is made (same transaction), never a stored stage or status: listeners see
 * what every page and answer shows (a commission moved to an earlier sale says `moved`).
 */
const withState = (type: string, data: string, programId: string) =>
  `CASE WHEN ${type} LIKE 'commission.%' THEN ${data} || jsonb_build_object('state',
     (SELECT cs.state FROM commission_states cs WHERE cs.id = (${data} ->> 'commission_id')::bigint AND cs.program_id = ${programId}))
   ELSE ${data} END`;

/**
 * One round trip when no endpoint listens (nothing is written). Otherwise the deliveries'
 * jobs follow in the same transaction (pg-boss's tables are only touched when there is work).
 */
export async function writeMessage(client: PoolClient, queue: OutboundQueue, event: OutboundEvent): Promise<string | null> {
  const { rows } = await client.query(prepared(
    `WITH listening AS (
       SELECT id FROM webhook_endpoints WHERE program_id = $1 AND enabled AND $2 = ANY (event_types)
     ), message AS (
       INSERT INTO webhook_messages (id, program_id, type, test, data)
       SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), $1, $2, $3, ${withState('$2::text', '$4::jsonb', '$1')}
        WHERE EXISTS (SELECT 1 FROM listening)
       RETURNING id
     ), delivery AS (
       INSERT INTO webhook_deliveries (message_id, endpoint_id, next_attempt_at)
       SELECT message.id, listening.id, now() FROM message, listening
       RETURNING id
     )
     SELECT (SELECT id FROM message) AS message_id, coalesce(array_agg(delivery.id), '{}') AS delivery_ids FROM delivery`,
    [event.programId, event.type, event.test, event.data],
  ));
  const deliveryIds: number[] = rows[0]?.delivery_ids ?? [];
  if (deliveryIds.length > 0) await queueDeliveries(client, queue, deliveryIds, null);
  return rows[0]?.message_id ?? null;
}

/** Workers LISTEN here: a delivery due now wakes them at commit instead of their next poll. */
export const OUTBOUND_CHANNEL = 'affix_webhook_deliveries';

/** A job for each delivery, in the caller's transaction; `startAfter` null means now (and wakes the workers). */
/**
 * Many events of one program in one statement (a bulk action's chunk): the messages some
 * endpoint listens to, their deliveries, then their jobs. One round trip when none listens.
 */
export async function writeMessages(client: PoolClient, queue: OutboundQueue, programId: number, events: Omit<OutboundEvent, 'programId'>[]): Promise<void> {
  if (events.length === 0) return;
  const { rows } = await client.query(
    `WITH listening AS (
       SELECT id, event_types FROM webhook_endpoints WHERE program_id = $1 AND enabled
     ), event AS (
       SELECT e.type, e.test, e.data FROM unnest($2::text[], $3::boolean[], $4::jsonb[]) WITH ORDINALITY AS e (type, test, data, ord)
        WHERE EXISTS (SELECT 1 FROM listening l WHERE e.type = ANY (l.event_types)) ORDER BY e.ord
     ), message AS (
       INSERT INTO webhook_messages (id, program_id, type, test, data)
       SELECT 'msg_' || replace(gen_random_uuid()::text, '-', ''), $1, type, test, ${withState('type', 'data', '$1')} FROM event
       RETURNING id, type
     ), delivery AS (
       INSERT INTO webhook_deliveries (message_id, endpoint_id, next_attempt_at)
       SELECT m.id, l.id, now() FROM message m JOIN listening l ON m.type = ANY (l.event_types)
       RETURNING id
     )
     SELECT coalesce(array_agg(id ORDER BY id), '{}') AS delivery_ids FROM delivery`,
    [programId, events.map((e) => e.type), events.map((e) => e.test), events.map((e) => JSON.stringify(e.data))],
  );
  const deliveryIds: number[] = rows[0]?.delivery_ids ?? [];
  if (deliveryIds.length > 0) await queueDeliveries(client, queue, deliveryIds, null);
}

export async function queueDeliveries(client: PoolClient, queue: OutboundQueue, deliveryIds: number[], startAfter: Date | null): Promise<void> {
  await client.query(prepared(
    `WITH due AS (SELECT unnest($1::bigint[]) AS id), job AS (
       ${insertJobs({ schema: queue.schema, queue: '$2', data: "jsonb_build_object('deliveryId', due.id)", from: 'due', startAfter: 'coalesce($3::timestamptz, now())' })}
     )
     SELECT CASE WHEN $3::timestamptz IS NULL THEN ${notifyIfJobs('$4')} END`,
    [deliveryIds, queue.name, startAfter, OUTBOUND_CHANNEL],
  ));
}
