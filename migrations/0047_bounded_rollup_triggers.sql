-- The rollup triggers' memory no longer grows with their statement. They gathered the statement's
-- rows (the trigger's transition table) into one array for the facts functions: an array is one
-- allocation of at most 1 GB, so a statement of about 7 M clicks failed inside the trigger
-- ("invalid memory alloc request size"), and a smaller one held all its rows in memory at once.
-- Now each trigger reads its transition table a slice of 10,000 rows at a time and adds each
-- slice's facts as it goes: any statement size, a few MB of memory. The facts functions
-- (migration 0028) stay the one definition of what a row counts; a slice's facts sum like the
-- statement's (every fact is a sum), and a sale's "first of its customer" reads the table, where
-- the whole statement's rows are already visible. Statements of at most a slice (every path the
-- service itself records through) work exactly as before, in one call; a larger one writes the
-- rollups once per slice, each write in key order (a bulk load is best run alone).
--
-- Inside a worker's batch (migration 0032) the rows are kept in the session's temporary table,
-- which spills to disk, and computed when the batch applies: a batch is at most the worker's
-- batch size of events.

CREATE OR REPLACE FUNCTION rollup_recorded() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;

-- An update takes each row's old facts out and puts its new ones in, in one write when the
-- statement fits a slice (a change that leaves a commission's state as it was writes nothing,
-- as before).
CREATE OR REPLACE FUNCTION rollup_commission_changed() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;
