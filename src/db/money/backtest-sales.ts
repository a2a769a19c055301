// What the reward-rule backtest reads (docs/rewards.md): a program's partner sales over a period,
// in the order they were paid, a page at a time by sales_program_occurred_idx (the key
// (occurred_at, id) is the cursor), each with its customer's earlier paid sales (the
// (customer_id, occurred_at) index, as REWARD_HISTORY reads them live) and its commission.
import type { BacktestSale } from '../../core/backtest.js';
import type { RuleSetDocument } from '../../core/commission-rewards.js';
import type { Currency } from '../../core/types.js';
import type { PoolClient } from '../infra/pool.js';
import { prepared } from '../infra/prepared.js';

/**
 * $1 program, $2 read from, $3 to (inclusive), $4/$5 the cursor, $6 decide from, $7 the group
 * (null: the program's own scope), $8 page size. A sale is decided when it is in the period and
 * its partner is paid by the scope's rule set: not on their own terms (an override), and in the
 * group — or, for the program's scope, in no group with a published set of its own.
 */
export const BACKTEST_SALES = `
  SELECT s.id, s.partner_id, s.customer_id, s.amount_cents, s.currency, s.occurred_at, s.occurred_at::text AS cursor_at,
         s.product_ids, s.price_ids, s.billing_interval, s.buyer_country,
         coalesce(c.amount_cents, 0)::bigint AS actual_cents, c.rule_id AS actual_rule_id,
         (s.occurred_at >= $6
          AND NOT EXISTS (SELECT 1 FROM partner_term_overrides o WHERE o.partner_id = s.partner_id)
          AND CASE WHEN $7::bigint IS NOT NULL THEN pa.group_id = $7::bigint
                   ELSE pa.group_id IS NULL OR NOT EXISTS (SELECT 1 FROM reward_rule_sets r
                          WHERE r.program_id = $1 AND coalesce(r.group_id, 0) = pa.group_id AND r.version > 0) END) AS decide,
         h.first_paid_at, h.earlier
    FROM sales s
    JOIN partners pa ON pa.id = s.partner_id
    LEFT JOIN commissions c ON c.sale_id = s.id
    LEFT JOIN LATERAL (
      SELECT min(e.occurred_at) AS first_paid_at, count(*)::int AS earlier
        FROM sales e
       WHERE e.customer_id = s.customer_id AND NOT e.test AND e.amount_cents > 0
         AND (e.occurred_at < s.occurred_at OR (e.occurred_at = s.occurred_at AND e.processor_event_id < s.processor_event_id))
    ) h ON s.occurred_at >= $6
   WHERE s.program_id = $1 AND s.partner_id IS NOT NULL AND NOT s.test
     AND s.occurred_at >= $2 AND s.occurred_at <= $3
     AND (s.occurred_at, s.id) > ($4::timestamptz, $5::bigint)
   ORDER BY s.occurred_at, s.id
   LIMIT $8`;

export interface BacktestRange {
  programId: number;
  groupId: number | null;
  readFrom: Date;
  from: Date;
  to: Date;
}

/** Every sale of the range, in paid order, a page at a time (one statement per page). */
export async function* backtestSales(client: PoolClient, range: BacktestRange, pageSize = 5_000): AsyncGenerator<BacktestSale> {
  // The cursor's time as the server wrote it: a Date would drop its microseconds.
  let cursor: { at: string; id: number } = { at: '-infinity', id: 0 };
  for (;;) {
    const { rows } = await client.query(prepared(BACKTEST_SALES, [range.programId, range.readFrom, range.to, cursor.at, cursor.id, range.from, range.groupId, pageSize]));
    for (const r of rows) {
      yield {
        saleId: Number(r.id),
        partnerId: Number(r.partner_id),
        customerId: Number(r.customer_id),
        amountCents: Number(r.amount_cents),
        currency: r.currency as Currency,
        paidAt: r.occurred_at,
        purchase: { productIds: r.product_ids, priceIds: r.price_ids, interval: r.billing_interval, country: r.buyer_country },
        firstPaidAt: r.first_paid_at ?? null,
        earlierPaidSales: r.earlier ?? 0,
        actualCents: Number(r.actual_cents),
        actualRuleId: r.actual_rule_id,
        decide: r.decide === true,
      };
    }
    if (rows.length < pageSize) return;
    const last = rows[rows.length - 1];
    cursor = { at: last.cursor_at, id: Number(last.id) };
  }
}

/** The scope's draft (version 0) as it stands, read without a lock: the backtest writes nothing. */
export async function draftOf(client: PoolClient, programId: number, groupId: number | null): Promise<{ id: number; document: RuleSetDocument; updatedAt: Date } | null> {
  const { rows } = await client.query(
    'SELECT id, rules, updated_at FROM reward_rule_sets WHERE program_id = $1 AND coalesce(group_id, 0) = coalesce($2::bigint, 0) AND version = 0',
    [programId, groupId],
  );
  return rows[0] ? { id: Number(rows[0].id), document: rows[0].rules, updatedAt: rows[0].updated_at } : null;
}
