-- Every event Stripe signs is stored. A payload PostgreSQL's jsonb cannot hold as is (NUL
-- characters, unpaired surrogates, very deep nesting) is kept as its raw bytes instead.
ALTER TABLE webhook_events ALTER COLUMN payload DROP NOT NULL;
ALTER TABLE webhook_events ADD COLUMN raw_body bytea;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_body_kept CHECK (payload IS NOT NULL OR raw_body IS NOT NULL);

-- Rate-limit windows are pruned when they end, whatever their length (the hourly test-event
-- chain cap was pruned after 10 minutes and reset).
ALTER TABLE rate_limit_counters ADD COLUMN expires_at timestamptz;
UPDATE rate_limit_counters SET expires_at = window_start + interval '1 day';
ALTER TABLE rate_limit_counters ALTER COLUMN expires_at SET NOT NULL;
CREATE INDEX rate_limit_counters_expiry_idx ON rate_limit_counters (expires_at);
