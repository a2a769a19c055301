-- Within a worker batch (migration 0030), the triggers of sales, commissions and the ledger keep
-- the rows they saw instead of computing their facts: the facts of all of them are computed
-- once, set-wise, when the batch applies its rollups. Computing them statement by statement
-- cost more than the statements' own writes (about 0.5 to 0.9 ms of the database's time per
-- sale with its commission and ledger entry, against about 0.15 ms when computed once for a
-- batch of 8, and 0.03 ms for 400). Outside a batch nothing changes.
--
-- A row is kept as it was when its statement ran (jsonb, read back as the table's row type when
-- applied, so a session's kept rows never disagree with a column a later migration adds). A
-- commission updated in the batch is kept twice, as it was (sign -1) and as it became (sign 1),
-- exactly as its trigger counted it before. The facts read the sales and customers the rows
-- name when the batch applies them, within the same transaction.
--
-- The temporary tables of 0030 were emptied by DELETE, and a temporary table is never vacuumed:
-- a worker's session grew its table by every batch it ran (16 kB a batch of 8 sales: 6.5 MB
-- after 400 batches, each apply reading all of it). The batch's tables are now emptied by the
-- commit itself (ON COMMIT DELETE ROWS truncates them in place), under new names so that no
-- session goes on with a table of the old kind.

CREATE OR REPLACE FUNCTION begin_batched_rollups() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF to_regclass('pg_temp.batch_rollup_facts') IS NULL THEN
    CREATE TEMPORARY TABLE batch_rollup_facts OF rollup_fact ON COMMIT DELETE ROWS;
    CREATE TEMPORARY TABLE batch_rollup_rows (source text NOT NULL, sign integer NOT NULL, row_ jsonb NOT NULL) ON COMMIT DELETE ROWS;
  END IF;
  PERFORM set_config('affix.batched_rollups', 'on', true);
END $$;

CREATE OR REPLACE FUNCTION rollup_recorded() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'clicks' THEN
    PERFORM apply_rollup_facts(click_facts(ARRAY(SELECT ROW(a.*)::clicks FROM added a)));
  ELSIF current_setting('affix.batched_rollups', true) = 'on' THEN
    INSERT INTO pg_temp.batch_rollup_rows SELECT TG_TABLE_NAME, 1, to_jsonb(a) FROM added a;
  ELSIF TG_TABLE_NAME = 'sales' THEN
    PERFORM apply_rollup_facts(sale_facts(ARRAY(SELECT ROW(a.*)::sales FROM added a)));
  ELSIF TG_TABLE_NAME = 'commission_ledger' THEN
    PERFORM apply_rollup_facts(ledger_facts(ARRAY(SELECT ROW(a.*)::commission_ledger FROM added a)));
  ELSIF TG_TABLE_NAME = 'commissions' THEN
    PERFORM apply_rollup_facts(commission_facts(ARRAY(SELECT ROW(a.*)::commissions FROM added a), 1));
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION rollup_commission_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('affix.batched_rollups', true) = 'on' THEN
    INSERT INTO pg_temp.batch_rollup_rows
    SELECT 'commissions', -1, to_jsonb(o) FROM before o
    UNION ALL
    SELECT 'commissions', 1, to_jsonb(n) FROM after n;
  ELSE
    PERFORM apply_rollup_facts(commission_facts(ARRAY(SELECT ROW(o.*)::commissions FROM before o), -1) || commission_facts(ARRAY(SELECT ROW(n.*)::commissions FROM after n), 1));
  END IF;
  RETURN NULL;
END $$;

-- The batch's facts (those computed as they came, and those of the rows kept), summed, into the
-- rollups; the transaction's later statements write theirs directly again.
CREATE OR REPLACE FUNCTION apply_batched_rollups() RETURNS void LANGUAGE plpgsql AS $$
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
END $$;

-- Facts computed as they come (a lead recorded in a batch) wait in the batch's own table too.
CREATE OR REPLACE FUNCTION apply_rollup_facts(facts rollup_fact[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(facts) = 0 THEN RETURN; END IF;
  IF current_setting('affix.batched_rollups', true) = 'on' THEN
    INSERT INTO pg_temp.batch_rollup_facts SELECT * FROM unnest(facts);
  ELSE
    PERFORM write_rollup_facts(facts);
  END IF;
END $$;
