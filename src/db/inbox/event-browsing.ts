// Support's view of the inbox: events listed and shown with their commission, replayed.
import { AffixError } from '../../core/errors.js';
import type { InboxStatus } from '../../core/inbox.js';
import type { ProcessorName } from '../../core/processor-port.js';
import { type Pool, withTransaction } from '../infra/pool.js';
import { COLUMNS, type EnqueueInTransaction, type InboxEvent } from './inbound-events.js';

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
