-- What the dashboard and the portal show, kept as events are recorded, so a page reads a few
-- hundred rows whatever the program's history (docs/architecture.md, "Page rollups").
--
-- One row per program, partner, day (UTC), link, measure, currency and shard:
--   partner -1, link -1: the whole program that day (overview);
--   partner p, link -1: partner p that day (overview filtered by partner, earnings over time);
--   partner p, link l, day 'infinity': partner p's link l for all time (partners list, portal).
-- Partner 0 / link 0: none. Measures: clicks, leads (people who became leads), converted (of
-- those, the ones who have bought; counted on their lead's day), buyers (people's first paid
-- sale), sales and revenue (per currency, by the sale's occurred_at), commissions:<state> and
-- earned:<state> (how many, and what they earn now, by state and the sale's day), ledger_pending / ledger_approved /
-- ledger_paid (the ledger's buckets). Test events are not counted.
-- A recording transaction writes its connection's own shard (the backend's pid): two never wait
-- on one row. Shard -1 holds what the upkeep folded, and only the upkeep writes it.
-- No foreign key to programs: clicks have none either (they are partitioned and written at the
-- database's pace), and a deleted program's rows go with it (the trigger below).
CREATE TABLE page_rollups (
  program_id  bigint NOT NULL,
  partner_id  bigint NOT NULL,
  day         date NOT NULL,
  link_id     bigint NOT NULL,
  measure     text NOT NULL,
  currency    text NOT NULL,
  shard       integer NOT NULL,
  value       bigint NOT NULL,
  PRIMARY KEY (program_id, partner_id, day, link_id, measure, currency, shard)
);
CREATE INDEX page_rollups_partner_idx ON page_rollups (partner_id, day) WHERE partner_id > 0;

CREATE FUNCTION page_rollups_of_deleted_program() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM page_rollups WHERE program_id = OLD.id;
  RETURN NULL;
END $$;
CREATE TRIGGER programs_page_rollups AFTER DELETE ON programs FOR EACH ROW EXECUTE FUNCTION page_rollups_of_deleted_program();

CREATE TYPE rollup_fact AS (program_id bigint, partner_id bigint, link_id bigint, day date, measure text, currency text, value bigint);

CREATE FUNCTION utc_day(at timestamptz) RETURNS date LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (at AT TIME ZONE 'UTC')::date;

-- Each fact counts three times: for the program that day, for its partner that day, and for its
-- partner's link for all time. Rows are written in key order (two transactions never lock in
-- opposite orders), and facts that cancel out write nothing.
CREATE FUNCTION apply_rollup_facts(facts rollup_fact[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(facts) = 0 THEN RETURN; END IF;
  INSERT INTO page_rollups (program_id, partner_id, day, link_id, measure, currency, shard, value)
  SELECT f.program_id, x.partner_id, x.day, x.link_id, f.measure, f.currency, pg_backend_pid(), sum(f.value)
    FROM unnest(facts) f
    CROSS JOIN LATERAL (VALUES (-1::bigint, f.day, -1::bigint),
                               (coalesce(f.partner_id, 0), f.day, -1::bigint),
                               (coalesce(f.partner_id, 0), 'infinity'::date, coalesce(f.link_id, 0))) x (partner_id, day, link_id)
   GROUP BY 1, 2, 3, 4, 5, 6
  HAVING sum(f.value) <> 0
   ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (program_id, partner_id, day, link_id, measure, currency, shard)
  DO UPDATE SET value = page_rollups.value + EXCLUDED.value;
END $$;

-- A commission's state and what it earns now: the rule the commission_states view reads (and
-- the rollups), written once.
CREATE FUNCTION commission_state(moved_to_sale_id bigint, stage text, status text, amount_cents bigint, deducted_cents bigint, test boolean, payout_id bigint)
  RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  -- The order is the rule: a commission with no money left is reversed whatever its stage said
  -- (a paid one then was clawed back); then the lifecycle.
  RETURN CASE
    WHEN moved_to_sale_id IS NOT NULL THEN 'moved'
    WHEN stage = 'rejected' THEN 'rejected'
    WHEN status = 'reversed' OR amount_cents = deducted_cents THEN 'reversed'
    WHEN stage = 'paid' THEN 'paid'
    WHEN test THEN 'test'
    WHEN stage = 'approved' AND payout_id IS NOT NULL THEN 'in_payout'
    ELSE stage
  END;

CREATE FUNCTION commission_earned(moved_to_sale_id bigint, stage text, amount_cents bigint, deducted_cents bigint)
  RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
  -- Nothing once moved or rejected.
  RETURN CASE WHEN moved_to_sale_id IS NOT NULL OR stage = 'rejected' THEN 0 ELSE amount_cents - deducted_cents END;

CREATE OR REPLACE VIEW commission_states AS
SELECT c.id, c.sale_id, c.program_id, c.partner_id, c.currency, c.amount_cents, c.deducted_cents, c.created_at,
       c.stage, c.status AS refund_status, c.payout_id, c.test, c.moved_to_sale_id, c.hold_reasons,
       commission_state(c.moved_to_sale_id, c.stage, c.status, c.amount_cents, c.deducted_cents, c.test, c.payout_id) AS state,
       commission_earned(c.moved_to_sale_id, c.stage, c.amount_cents, c.deducted_cents) AS earned_cents
  FROM commissions c;

-- The facts of each source, for its rows (a trigger's transition table, or the whole table once).
CREATE FUNCTION click_facts(added clicks[]) RETURNS rollup_fact[] LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(array_agg(ROW(program_id, partner_id, link_id, day, 'clicks', '', n)::rollup_fact), '{}')
    FROM (SELECT a.program_id, a.partner_id, a.link_id, utc_day(a.created_at) AS day, count(*) AS n
            FROM unnest(added) a WHERE NOT a.test GROUP BY 1, 2, 3, 4) g);
END $$;

-- A lead counts once, when recorded (settling a provisional lead is not a new one). A lead is
-- always recorded before its customer's sales (a customer who bought is refused as a lead), so
-- its customer's first sale counts it as converted (sale_facts).
CREATE FUNCTION lead_facts(added tracking_events[]) RETURNS rollup_fact[] LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(array_agg(ROW(program_id, partner_id, link_id, day, 'leads', '', n)::rollup_fact), '{}')
    FROM (SELECT a.program_id, cu.partner_id, cu.link_id, utc_day(a.created_at) AS day, count(*) AS n
            FROM unnest(added) a JOIN customers cu ON cu.id = a.customer_id
           WHERE a.kind = 'lead' AND NOT a.test AND coalesce(a.details ->> 'settled', 'false') <> 'true'
           GROUP BY 1, 2, 3, 4) g);
END $$;

-- A sale counts on its occurred_at day; a customer's first paid sale makes a buyer that day and,
-- when the customer was a lead, converts the lead on the lead's day.
CREATE FUNCTION sale_facts(added sales[]) RETURNS rollup_fact[] LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(array_agg(ROW(program_id, partner_id, link_id, day, measure, currency, v)::rollup_fact), '{}')
    FROM (SELECT a.program_id, a.partner_id, cu.link_id, m.day, m.measure, m.currency, sum(m.v) AS v
            FROM unnest(added) a
            LEFT JOIN customers cu ON cu.id = a.customer_id
            CROSS JOIN LATERAL (SELECT a.customer_id IS NOT NULL
                                       AND NOT EXISTS (SELECT 1 FROM sales o WHERE o.customer_id = a.customer_id AND NOT o.test AND o.id < a.id) AS first) f
            CROSS JOIN LATERAL (VALUES (utc_day(a.occurred_at), 'sales', a.currency, 1::bigint),
                                       (utc_day(a.occurred_at), 'revenue', a.currency, a.amount_cents),
                                       (utc_day(a.occurred_at), 'buyers', '', CASE WHEN f.first THEN 1 ELSE 0 END),
                                       (utc_day(cu.lead_at), 'converted', '', CASE WHEN f.first AND cu.lead_at IS NOT NULL THEN 1 ELSE 0 END)) m (day, measure, currency, v)
           WHERE NOT a.test AND m.v <> 0
           GROUP BY 1, 2, 3, 4, 5, 6) g);
END $$;

-- Commissions, by state on their sale's day: how many, and what they earn now. `sign` -1 takes
-- rows out (their state before an update), 1 puts them in.
CREATE FUNCTION commission_facts(rows_ commissions[], sign integer) RETURNS rollup_fact[] LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(array_agg(ROW(program_id, partner_id, link_id, day, measure, currency, v)::rollup_fact), '{}')
    FROM (SELECT c.program_id, c.partner_id, cu.link_id, utc_day(s.occurred_at) AS day, m.measure || st.state AS measure, c.currency, sign * sum(m.v) AS v
            FROM unnest(rows_) c JOIN sales s ON s.id = c.sale_id LEFT JOIN customers cu ON cu.id = s.customer_id
            CROSS JOIN LATERAL (SELECT commission_state(c.moved_to_sale_id, c.stage, c.status, c.amount_cents, c.deducted_cents, c.test, c.payout_id) AS state) st
            CROSS JOIN LATERAL (VALUES ('commissions:', 1::bigint),
                                       ('earned:', commission_earned(c.moved_to_sale_id, c.stage, c.amount_cents, c.deducted_cents))) m (measure, v)
           WHERE NOT s.test
           GROUP BY 1, 2, 3, 4, 5, 6) g);
END $$;

CREATE FUNCTION ledger_facts(added commission_ledger[]) RETURNS rollup_fact[] LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(array_agg(ROW(program_id, partner_id, 0, day, measure, currency, v)::rollup_fact), '{}')
    FROM (SELECT a.program_id, a.partner_id, utc_day(a.created_at) AS day, m.measure, a.currency, sum(m.v) AS v
            FROM unnest(added) a
            CROSS JOIN LATERAL (VALUES ('ledger_pending', a.pending_cents), ('ledger_approved', a.approved_cents), ('ledger_paid', a.paid_cents)) m (measure, v)
           GROUP BY 1, 2, 3, 4, 5) g);
END $$;

-- Statement triggers: one write of the rollups per statement, whatever it recorded (a bulk insert too).
CREATE FUNCTION rollup_recorded() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'clicks' THEN
    PERFORM apply_rollup_facts(click_facts(ARRAY(SELECT ROW(a.*)::clicks FROM added a)));
  ELSIF TG_TABLE_NAME = 'sales' THEN
    PERFORM apply_rollup_facts(sale_facts(ARRAY(SELECT ROW(a.*)::sales FROM added a)));
  ELSIF TG_TABLE_NAME = 'commission_ledger' THEN
    PERFORM apply_rollup_facts(ledger_facts(ARRAY(SELECT ROW(a.*)::commission_ledger FROM added a)));
  ELSIF TG_TABLE_NAME = 'commissions' THEN
    PERFORM apply_rollup_facts(commission_facts(ARRAY(SELECT ROW(a.*)::commissions FROM added a), 1));
  END IF;
  RETURN NULL;
END $$;

-- Leads one row at a time: the trigger's condition keeps the far more numerous click events free of it.
CREATE FUNCTION rollup_lead_recorded() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM apply_rollup_facts(lead_facts(ARRAY[ROW(NEW.*)::tracking_events]));
  RETURN NULL;
END $$;

CREATE FUNCTION rollup_commission_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM apply_rollup_facts(commission_facts(ARRAY(SELECT ROW(o.*)::commissions FROM before o), -1) || commission_facts(ARRAY(SELECT ROW(n.*)::commissions FROM after n), 1));
  RETURN NULL;
END $$;

CREATE TRIGGER clicks_rollup AFTER INSERT ON clicks REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION rollup_recorded();
CREATE TRIGGER tracking_events_rollup AFTER INSERT ON tracking_events FOR EACH ROW WHEN (NEW.kind = 'lead' AND NOT NEW.test) EXECUTE FUNCTION rollup_lead_recorded();
CREATE TRIGGER sales_rollup AFTER INSERT ON sales REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION rollup_recorded();
CREATE TRIGGER commission_ledger_rollup AFTER INSERT ON commission_ledger REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION rollup_recorded();
CREATE TRIGGER commissions_rollup AFTER INSERT ON commissions REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION rollup_recorded();
CREATE TRIGGER commissions_rollup_changed AFTER UPDATE ON commissions REFERENCING OLD TABLE AS before NEW TABLE AS after FOR EACH STATEMENT EXECUTE FUNCTION rollup_commission_changed();

-- What was recorded before this migration, counted once: clicks and leads a day at a time, by
-- index (a big history never sits in memory at once).
DO $$
DECLARE
  p bigint;
  d date;
BEGIN
  FOR d IN SELECT DISTINCT utc_day(created_at) FROM clicks LOOP
    PERFORM apply_rollup_facts(click_facts(ARRAY(
      SELECT c FROM clicks c WHERE c.created_at >= d::timestamp AT TIME ZONE 'UTC' AND c.created_at < (d + 1)::timestamp AT TIME ZONE 'UTC')));
  END LOOP;
  FOR p, d IN SELECT DISTINCT program_id, utc_day(created_at) FROM tracking_events WHERE kind = 'lead' LOOP
    PERFORM apply_rollup_facts(lead_facts(ARRAY(
      SELECT e FROM tracking_events e WHERE e.program_id = p AND e.kind = 'lead'
         AND e.created_at >= d::timestamp AT TIME ZONE 'UTC' AND e.created_at < (d + 1)::timestamp AT TIME ZONE 'UTC')));
  END LOOP;
END $$;
SELECT apply_rollup_facts(sale_facts(ARRAY(SELECT s FROM sales s)));
SELECT apply_rollup_facts(commission_facts(ARRAY(SELECT c FROM commissions c), 1));
SELECT apply_rollup_facts(ledger_facts(ARRAY(SELECT l FROM commission_ledger l)));
