-- A worker that attributes several events in one transaction writes the pages' rollups once for
-- all of them instead of once per statement (about 20 rows upserted per sale otherwise: the
-- largest part of the database's work per event). Within such a transaction the triggers'
-- facts, computed exactly as before, wait in a temporary table of the session; the batch
-- applies their sum before it commits. The temporary rows are written and removed in the
-- transaction that recorded them, so a rolled-back batch leaves none.

-- The upsert of migration 0028 keeps its body under a new name; the name the triggers call
-- now decides whether to write or to keep the facts for the batch.
ALTER FUNCTION apply_rollup_facts(rollup_fact[]) RENAME TO write_rollup_facts;

CREATE FUNCTION apply_rollup_facts(facts rollup_fact[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(facts) = 0 THEN RETURN; END IF;
  IF current_setting('affix.batched_rollups', true) = 'on' THEN
    INSERT INTO pg_temp.pending_rollup_facts SELECT * FROM unnest(facts);
  ELSE
    PERFORM write_rollup_facts(facts);
  END IF;
END $$;

CREATE FUNCTION begin_batched_rollups() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF to_regclass('pg_temp.pending_rollup_facts') IS NULL THEN
    CREATE TEMPORARY TABLE pending_rollup_facts OF rollup_fact;
  END IF;
  PERFORM set_config('affix.batched_rollups', 'on', true);
END $$;

-- The batch's facts, summed, into the rollups; the transaction's later statements write theirs
-- directly again.
CREATE FUNCTION apply_batched_rollups() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  facts rollup_fact[];
BEGIN
  PERFORM set_config('affix.batched_rollups', 'off', true);
  IF to_regclass('pg_temp.pending_rollup_facts') IS NULL THEN RETURN; END IF;
  WITH taken AS (DELETE FROM pg_temp.pending_rollup_facts RETURNING *)
  SELECT coalesce(array_agg(ROW(t.*)::rollup_fact), '{}') INTO facts FROM taken t;
  PERFORM write_rollup_facts(facts);
END $$;
