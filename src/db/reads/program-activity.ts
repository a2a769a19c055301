// What a program's dashboard pages read beside the rollups: the activity feed (and its CSV pages),
// the processors' inbox of the program, the partners with their links, Stripe's live check.
// Every read is scoped by program.
import type { Pool } from '../infra/pool.js';

export async function stripeLiveCheck(pool: Pool, programId: number) {
  const { rows } = await pool.query(
    `SELECT p.stripe_account_id, e.program_id IS NOT NULL AS secret_set, p.livemode_only_commissions,
            (SELECT max(w.received_at) FROM webhook_events w WHERE w.program_id = p.id) AS stripe_last_event_at,
            e.last_signature_error AS stripe_last_signature_error, e.last_signature_error_at AS stripe_last_signature_error_at
       FROM programs p LEFT JOIN processor_endpoints e ON e.program_id = p.id AND e.processor = 'stripe'
      WHERE p.id = $1`,
    [programId],
  );
  return rows[0];
}

export async function partnersWithLinks(pool: Pool, programId: number) {
  const { rows } = await pool.query(
    `SELECT p.id AS partner_id, p.name, l.id AS link_id, l.short_link, l.enabled
       FROM partners p LEFT JOIN referral_links l ON l.partner_id = p.id
      WHERE p.program_id = $1 AND NOT p.test ORDER BY p.id, l.id`,
    [programId],
  );
  return rows as { partner_id: number; name: string; link_id: number | null; short_link: string | null; enabled: boolean | null }[];
}

export interface ActivityFilter {
  partnerId: number | null;
  from: Date;
  to: Date;
  mode: 'all' | 'live' | 'test';
}

/**
 * An event's own time: a sale's when it happened (its sale's occurred_at, carried on the event),
 * a click's or a lead's when recorded. The expression of tracking_events_program_own_time_idx.
 */
export const OWN_TIME = (e: string) => `coalesce(${e}.sale_occurred_at, ${e}.created_at)`;

/**
 * Newest first by their own time (then by id), `limit` rows from `offset` (the page shows 50), or
 * after the event `beforeEventId` (keyset: the CSV export reads a page at a time, exact to the
 * microsecond). The period is of the same time; one index on (program, own time, id) serves both.
 */
export async function activity(pool: Pool, programId: number, filter: ActivityFilter, page: { limit: number; offset?: number; beforeEventId?: number | null }) {
  const test = filter.mode === 'all' ? null : filter.mode === 'test';
  const { rows } = await pool.query(
    `SELECT e.id AS event_id, e.kind, ${OWN_TIME('e')} AS occurred_at, e.created_at AS recorded_at, e.test, e.click_id, cu.customer_key,
            coalesce(s.partner_id, cu.partner_id, (SELECT k.partner_id FROM clicks k WHERE k.click_id = e.click_id LIMIT 1)) AS partner_id,
            s.processor_event_id AS transaction_id, s.amount_cents, s.currency, s.attribution_step, s.commission_reason,
            c.earned_cents AS commission_cents, c.state AS commission_state,
            (SELECT string_agg(r.reason || ' ' || r.amount_cents || CASE WHEN r.reverted_at IS NOT NULL THEN ' (restored)' ELSE '' END, ', ' ORDER BY r.id)
               FROM refunds r WHERE r.sale_id = s.id) AS refunds,
            (SELECT json_agg(json_build_object('reason', r.reason, 'cents', r.amount_cents::text, 'restored', r.reverted_at IS NOT NULL) ORDER BY r.id)
               FROM refunds r WHERE r.sale_id = s.id) AS refund_list
       FROM tracking_events e
       LEFT JOIN customers cu ON cu.id = e.customer_id
       LEFT JOIN sales s ON s.id = e.sale_id
       LEFT JOIN commission_states c ON c.sale_id = s.id
      WHERE e.program_id = $1 AND ${OWN_TIME('e')} >= $2 AND ${OWN_TIME('e')} < $3
        AND ($4::bigint IS NULL OR coalesce(s.partner_id, cu.partner_id, (SELECT k.partner_id FROM clicks k WHERE k.click_id = e.click_id LIMIT 1)) = $4)
        AND ($5::boolean IS NULL OR e.test = $5)
        AND ($8::bigint IS NULL OR (${OWN_TIME('e')}, e.id) < (SELECT ${OWN_TIME('b')}, b.id FROM tracking_events b WHERE b.id = $8 AND b.program_id = $1))
      ORDER BY ${OWN_TIME('e')} DESC, e.id DESC LIMIT $6 OFFSET $7`,
    [programId, filter.from, filter.to, filter.partnerId, test, page.limit, page.offset ?? 0, page.beforeEventId ?? null],
  );
  return rows;
}

/** Every row of the filter (newest first, at most `max`), a page of 1,000 at a time, by keyset. */
export async function* activityPages(pool: Pool, programId: number, filter: ActivityFilter, max: number) {
  let before: number | null = null;
  for (let read = 0; read < max; ) {
    const rows = await activity(pool, programId, filter, { limit: Math.min(1000, max - read), beforeEventId: before });
    if (rows.length > 0) yield rows;
    read += rows.length;
    if (rows.length < 1000) return;
    before = Number(rows[rows.length - 1].event_id);
  }
}

/** The program's events that need a look (failed, parked, dead, retrying), from every processor or one. */
export async function inboxForProgram(pool: Pool, programId: number, processor: string | null = null) {
  const { rows } = await pool.query(
    `SELECT id, processor, event_key, type, status, reason, attempts, received_at FROM webhook_events
      WHERE program_id = $1 AND status IN ('failed', 'parked', 'dead', 'retrying') AND ($2::text IS NULL OR processor = $2)
      ORDER BY id DESC LIMIT 50`,
    [programId, processor],
  );
  return rows;
}
