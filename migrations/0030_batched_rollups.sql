-- A worker that attributes several events in one transaction writes the pages' rollups once for
-- all of them instead of once per statement (about 20 rows upserted per sale otherwise: the
-- largest part of the database's work per event). Within such a transaction the triggers'
-- facts, computed exactly as before, wait in a temporary table of the session; the batch
-- applies their sum before it commits. A fact is never lost: the temporary rows are written
-- and removed in the transaction that recorded them, and any left by a transaction that did
-- not apply them (it committed without) are applied by the session's next batch.

CREATE FUNCTION begin_batched_rollups() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF to_regclass('pg_temp.pending_rollup_facts') IS NULL THEN
    CREATE TEMPORARY TABLE pending_rollup_facts OF rollup_fact;
  END IF;
  PERFORM set_config('affix.batched_rollups', 'on', true);
END $$;

CREATE OR REPLACE FUNCTION apply_rollup_facts(facts rollup_fact[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF cardinality(facts) = 0 THEN RETURN; END IF;
  IF current_setting('affix.batched_rollups', true) = 'on' THEN
    INSERT INTO pg_temp.pending_rollup_facts SELECT * FROM unnest(facts);
    RETURN;
  END IF;
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
  PERFORM apply_rollup_facts(facts);
END $$;
