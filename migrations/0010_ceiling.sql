-- Speed at the database's own limit (bench:webhooks, bench:click, bench:growth).

-- Rate-limit counters: written by every limited request. They need no crash safety (a lost
-- window restarts at zero), so no WAL and no flush per request.
ALTER TABLE rate_limit_counters SET UNLOGGED;

-- Readiness reads "ever seen" per kind and the last day's counts by index, flat in the history.
CREATE INDEX tracking_events_program_kind_idx ON tracking_events (program_id, kind, created_at);

-- "Is this customer key used in another program?" (unattributed leads and sales) by index.
CREATE INDEX customers_customer_key_idx ON customers (customer_key);
