// The pages' rollups beside a count made from the recorded rows themselves (the definition
// they must keep), for the tests of every path that records.
import type { Pool } from '../../src/db/infra/pool.js';

/**
 * Every measure counted from the rows themselves, per program, partner and day and per partner's
 * link for all time: the definition the rollups must keep.
 */
const RECOUNT = `
  WITH first_sales AS (
         SELECT DISTINCT ON (customer_id) id FROM sales WHERE customer_id IS NOT NULL AND NOT test ORDER BY customer_id, id),
       facts AS (
         SELECT program_id, partner_id, link_id, utc_day(created_at) AS day, 'clicks' AS measure, '' AS currency, 1::bigint AS v FROM clicks WHERE NOT test
         UNION ALL
         SELECT e.program_id, cu.partner_id, cu.link_id, utc_day(e.created_at), 'leads', '', 1 FROM tracking_events e JOIN customers cu ON cu.id = e.customer_id
          WHERE e.kind = 'lead' AND NOT e.test AND coalesce(e.details ->> 'settled', 'false') <> 'true'
         UNION ALL
         SELECT s.program_id, s.partner_id, cu.link_id, utc_day(s.occurred_at), m.measure, s.currency, m.v
           FROM sales s LEFT JOIN customers cu ON cu.id = s.customer_id
           CROSS JOIN LATERAL (VALUES ('sales', 1::bigint), ('revenue', s.amount_cents)) m (measure, v) WHERE NOT s.test
         UNION ALL
         SELECT s.program_id, s.partner_id, cu.link_id, utc_day(s.occurred_at), 'buyers', '', 1 FROM sales s JOIN customers cu ON cu.id = s.customer_id WHERE s.id IN (SELECT id FROM first_sales)
         UNION ALL
         SELECT s.program_id, s.partner_id, cu.link_id, utc_day(cu.lead_at), 'converted', '', 1 FROM sales s JOIN customers cu ON cu.id = s.customer_id
          WHERE s.id IN (SELECT id FROM first_sales) AND cu.lead_at IS NOT NULL
         UNION ALL
         SELECT cs.program_id, cs.partner_id, cu.link_id, utc_day(s.occurred_at), m.measure || cs.state, cs.currency, m.v
           FROM commission_states cs JOIN sales s ON s.id = cs.sale_id LEFT JOIN customers cu ON cu.id = s.customer_id
           CROSS JOIN LATERAL (VALUES ('commissions:', 1::bigint), ('earned:', cs.earned_cents)) m (measure, v) WHERE NOT s.test
         UNION ALL
         SELECT l.program_id, l.partner_id, 0, utc_day(l.created_at), m.measure, l.currency, m.v FROM commission_ledger l
           CROSS JOIN LATERAL (VALUES ('ledger_pending', l.pending_cents), ('ledger_approved', l.approved_cents), ('ledger_paid', l.paid_cents)) m (measure, v)),
       keyed AS (
         SELECT program_id, -1 AS partner_id, day::text, -1 AS link_id, measure, currency, v FROM facts
         UNION ALL SELECT program_id, coalesce(partner_id, 0), day::text, -1, measure, currency, v FROM facts
         UNION ALL SELECT program_id, coalesce(partner_id, 0), 'infinity', coalesce(link_id, 0), measure, currency, v FROM facts)
  SELECT partner_id::int, day, link_id::int, measure, currency, sum(v)::int AS value FROM keyed WHERE program_id = $1
   GROUP BY 1, 2, 3, 4, 5 HAVING sum(v) <> 0 ORDER BY 1, 2, 3, 4, 5`;

const ROLLED = `
  SELECT partner_id::int, day::text, link_id::int, measure, currency, sum(value)::int AS value FROM page_rollups WHERE program_id = $1
   GROUP BY 1, 2, 3, 4, 5 HAVING sum(value) <> 0 ORDER BY 1, 2, 3, 4, 5`;


export const recountRollups = async (pool: Pool, programId: number) => (await pool.query(RECOUNT, [programId])).rows;
export const rolledUp = async (pool: Pool, programId: number) => (await pool.query(ROLLED, [programId])).rows;
