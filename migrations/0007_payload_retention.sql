-- Stored Stripe payloads carry customers' emails and names. Once an event is final and older
-- than the retention period (AFFIX_WEBHOOK_RETENTION_DAYS, default 30), its payload is purged;
-- the inbox row (type, status, reason, attribution step, sale) stays for support.
ALTER TABLE webhook_events ADD COLUMN purged_at timestamptz;
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_body_kept;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_body_kept CHECK (payload IS NOT NULL OR raw_body IS NOT NULL OR purged_at IS NOT NULL);
CREATE INDEX webhook_events_retention_idx ON webhook_events (received_at) WHERE purged_at IS NULL;
