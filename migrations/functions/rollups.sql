-- The page rollups' functions and the commission_states view, as they are now (docs/architecture.md,
-- "Page rollups"). Applied after the numbered migrations whenever this file changes (src/db/migrate.ts):
-- a change to any of them is made here, once, and reaches every database, including those whose
-- earlier migrations held older bodies. Numbered migrations keep their history; they are never edited.
-- CREATE OR REPLACE keeps each function's name, arguments and result: a change to those is a
-- numbered migration (drop, then re-create here).

-- A commission's state and what it earns now: the rule the commission_states view reads (and
-- the rollups count by).
CREATE OR REPLACE FUNCTION utc_day(at timestamptz) RETURNS date LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (at AT TIME ZONE 'UTC')::date;

CREATE OR REPLACE FUNCTION commission_state(moved_to_sale_id bigint, stage text, status text, amount_cents bigint, deducted_cents bigint, test boolean, payout_id bigint)
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

CREATE OR REPLACE FUNCTION commission_earned(moved_to_sale_id bigint, stage text, amount_cents bigint, deducted_cents bigint)
  RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE
  -- Nothing once moved or rejected.
  RETURN CASE WHEN moved_to_sale_id IS NOT NULL OR stage = 'rejected' THEN 0 ELSE amount_cents - deducted_cents END;

CREATE OR REPLACE VIEW commission_states AS
SELECT id,
    sale_id,
    program_id,
    partner_id,
    currency,
    amount_cents,
    deducted_cents,
    created_at,
    stage,
    status AS refund_status,
    payout_id,
    test,
    moved_to_sale_id,
    hold_reasons,
    commission_state(moved_to_sale_id, stage, status, amount_cents, deducted_cents, test, payout_id) AS state,
    commission_earned(moved_to_sale_id, stage, amount_cents, deducted_cents) AS earned_cents,
    -- A bounty's commission has no sale (migration 0069), nor a lead's or a click day's (migration 0075).
    bounty_award_id,
    lead_customer_id,
    click_reward_day_id
   FROM commissions c;

-- The facts of each source, for its rows (a trigger's transition table, or a batch), and their upsert.
CREATE OR REPLACE FUNCTION public.click_facts(added clicks[])
 RETURNS rollup_fact[]
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN (SELECT coalesce(array_agg(ROW(program_id, partner_id, link_id, day, 'clicks', '', n)::rollup_fact), '{}')
    FROM (SELECT a.program_id, a.partner_id, a.link_id, utc_day(a.created_at) AS day, count(*) AS n
            FROM unnest(added) a WHERE NOT a.test GROUP BY 1, 2, 3, 4) g);
END $function$;

CREATE OR REPLACE FUNCTION public.lead_facts(added tracking_events[])
 RETURNS rollup_fact[]
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN (SELECT coalesce(array_agg(ROW(program_id, partner_id, link_id, day, 'leads', '', n)::rollup_fact), '{}')
    FROM (SELECT a.program_id, cu.partner_id, cu.link_id, utc_day(a.created_at) AS day, count(*) AS n
            FROM unnest(added) a JOIN customers cu ON cu.id = a.customer_id
           WHERE a.kind = 'lead' AND NOT a.test AND coalesce(a.details ->> 'settled', 'false') <> 'true'
           GROUP BY 1, 2, 3, 4) g);
END $function$;

CREATE OR REPLACE FUNCTION public.sale_facts(added sales[])
 RETURNS rollup_fact[]
 LANGUAGE plpgsql
 STABLE
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.commission_facts(rows_ commissions[], sign integer)
 RETURNS rollup_fact[]
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN (SELECT coalesce(array_agg(ROW(program_id, partner_id, link_id, day, measure, currency, v)::rollup_fact), '{}')
    -- A bounty's commission (no sale) counts on the day it was made, under no link.
    FROM (SELECT c.program_id, c.partner_id, cu.link_id, utc_day(coalesce(s.occurred_at, c.created_at)) AS day, m.measure || st.state AS measure, c.currency, sign * sum(m.v) AS v
            FROM unnest(rows_) c LEFT JOIN sales s ON s.id = c.sale_id LEFT JOIN customers cu ON cu.id = s.customer_id
            CROSS JOIN LATERAL (SELECT commission_state(c.moved_to_sale_id, c.stage, c.status, c.amount_cents, c.deducted_cents, c.test, c.payout_id) AS state) st
            CROSS JOIN LATERAL (VALUES ('commissions:', 1::bigint),
                                       ('earned:', commission_earned(c.moved_to_sale_id, c.stage, c.amount_cents, c.deducted_cents))) m (measure, v)
           WHERE NOT coalesce(s.test, c.test)
           GROUP BY 1, 2, 3, 4, 5, 6) g);
END $function$;

CREATE OR REPLACE FUNCTION public.ledger_facts(added commission_ledger[])
 RETURNS rollup_fact[]
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  RETURN (SELECT coalesce(array_agg(ROW(program_id, partner_id, 0, day, measure, currency, v)::rollup_fact), '{}')
    FROM (SELECT a.program_id, a.partner_id, utc_day(a.created_at) AS day, m.measure, a.currency, sum(m.v) AS v
            FROM unnest(added) a
            CROSS JOIN LATERAL (VALUES ('ledger_pending', a.pending_cents), ('ledger_approved', a.approved_cents), ('ledger_paid', a.paid_cents)) m (measure, v)
           GROUP BY 1, 2, 3, 4, 5) g);
END $function$;

CREATE OR REPLACE FUNCTION public.write_rollup_facts(facts rollup_fact[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
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
END $function$;

CREATE OR REPLACE FUNCTION public.apply_rollup_facts(facts rollup_fact[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF cardinality(facts) = 0 THEN RETURN; END IF;
  IF current_setting('affix.batched_rollups', true) = 'on' THEN
    INSERT INTO pg_temp.batch_rollup_facts SELECT * FROM unnest(facts);
  ELSE
    PERFORM write_rollup_facts(facts);
  END IF;
END $function$;

CREATE OR REPLACE FUNCTION public.begin_batched_rollups()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  IF to_regclass('pg_temp.batch_rollup_facts') IS NULL THEN
    CREATE TEMPORARY TABLE batch_rollup_facts OF rollup_fact ON COMMIT DELETE ROWS;
    CREATE TEMPORARY TABLE batch_rollup_rows (source text NOT NULL, sign integer NOT NULL, row_ jsonb NOT NULL) ON COMMIT DELETE ROWS;
  END IF;
  PERFORM set_config('affix.batched_rollups', 'on', true);
END $function$;

CREATE OR REPLACE FUNCTION public.apply_batched_rollups()
 RETURNS void
 LANGUAGE plpgsql
AS $function$
DECLARE
  facts rollup_fact[];
BEGIN
  PERFORM set_config('affix.batched_rollups', 'off', true);
  IF to_regclass('pg_temp.batch_rollup_facts') IS NULL THEN RETURN; END IF;
  -- Taken out, not only read: the rest of the transaction counts directly, and nothing counts twice.
  WITH taken AS (DELETE FROM pg_temp.batch_rollup_facts RETURNING *)
  SELECT coalesce(array_agg(ROW(t.*)::rollup_fact), '{}') INTO facts FROM taken t;
  WITH kept AS (DELETE FROM pg_temp.batch_rollup_rows RETURNING *)
  SELECT facts
         || sale_facts(ARRAY(SELECT jsonb_populate_record(NULL::sales, k.row_) FROM kept k WHERE k.source = 'sales'))
         || commission_facts(ARRAY(SELECT jsonb_populate_record(NULL::commissions, k.row_) FROM kept k WHERE k.source = 'commissions' AND k.sign = 1), 1)
         || commission_facts(ARRAY(SELECT jsonb_populate_record(NULL::commissions, k.row_) FROM kept k WHERE k.source = 'commissions' AND k.sign = -1), -1)
         || ledger_facts(ARRAY(SELECT jsonb_populate_record(NULL::commission_ledger, k.row_) FROM kept k WHERE k.source = 'commission_ledger'))
    INTO facts;
  PERFORM write_rollup_facts(facts);
END $function$;

CREATE OR REPLACE FUNCTION public.rollup_recorded()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  slice CONSTANT integer := 10000;
  click clicks;
  clicks_ clicks[] := '{}';
  sale sales;
  sales_ sales[] := '{}';
  entry commission_ledger;
  entries commission_ledger[] := '{}';
  commission commissions;
  commissions_ commissions[] := '{}';
BEGIN
  IF TG_TABLE_NAME = 'clicks' THEN
    FOR click IN SELECT * FROM added LOOP
      clicks_ := clicks_ || click;
      IF cardinality(clicks_) = slice THEN
        PERFORM apply_rollup_facts(click_facts(clicks_));
        clicks_ := '{}';
      END IF;
    END LOOP;
    PERFORM apply_rollup_facts(click_facts(clicks_));
  ELSIF current_setting('affix.batched_rollups', true) = 'on' THEN
    INSERT INTO pg_temp.batch_rollup_rows SELECT TG_TABLE_NAME, 1, to_jsonb(a) FROM added a;
  ELSIF TG_TABLE_NAME = 'sales' THEN
    FOR sale IN SELECT * FROM added LOOP
      sales_ := sales_ || sale;
      IF cardinality(sales_) = slice THEN
        PERFORM apply_rollup_facts(sale_facts(sales_));
        sales_ := '{}';
      END IF;
    END LOOP;
    PERFORM apply_rollup_facts(sale_facts(sales_));
  ELSIF TG_TABLE_NAME = 'commission_ledger' THEN
    FOR entry IN SELECT * FROM added LOOP
      entries := entries || entry;
      IF cardinality(entries) = slice THEN
        PERFORM apply_rollup_facts(ledger_facts(entries));
        entries := '{}';
      END IF;
    END LOOP;
    PERFORM apply_rollup_facts(ledger_facts(entries));
  ELSIF TG_TABLE_NAME = 'commissions' THEN
    FOR commission IN SELECT * FROM added LOOP
      commissions_ := commissions_ || commission;
      IF cardinality(commissions_) = slice THEN
        PERFORM apply_rollup_facts(commission_facts(commissions_, 1));
        commissions_ := '{}';
      END IF;
    END LOOP;
    PERFORM apply_rollup_facts(commission_facts(commissions_, 1));
  END IF;
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.rollup_commission_changed()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  slice CONSTANT integer := 10000;
  commission commissions;
  was commissions[] := '{}';
  became commissions[] := '{}';
BEGIN
  IF current_setting('affix.batched_rollups', true) = 'on' THEN
    INSERT INTO pg_temp.batch_rollup_rows
    SELECT 'commissions', -1, to_jsonb(o) FROM before o
    UNION ALL
    SELECT 'commissions', 1, to_jsonb(n) FROM after n;
    RETURN NULL;
  END IF;
  FOR commission IN SELECT * FROM before LOOP
    was := was || commission;
    IF cardinality(was) = slice THEN
      PERFORM apply_rollup_facts(commission_facts(was, -1));
      was := '{}';
    END IF;
  END LOOP;
  FOR commission IN SELECT * FROM after LOOP
    became := became || commission;
    IF cardinality(became) = slice THEN
      PERFORM apply_rollup_facts(commission_facts(became, 1));
      became := '{}';
    END IF;
  END LOOP;
  PERFORM apply_rollup_facts(commission_facts(was, -1) || commission_facts(became, 1));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.rollup_lead_recorded()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM apply_rollup_facts(lead_facts(ARRAY[ROW(NEW.*)::tracking_events]));
  RETURN NULL;
END $function$;

CREATE OR REPLACE FUNCTION public.page_rollups_of_deleted_program()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  DELETE FROM page_rollups WHERE program_id = OLD.id;
  RETURN NULL;
END $function$;
