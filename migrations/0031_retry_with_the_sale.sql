-- A refund or dispute delivered before its sale is retried with back-off (2 s, doubling, up to
-- minutes). It now names the ids it looks its sale up by and the job that will retry it, so that
-- recording the sale retries it at once.
ALTER TABLE webhook_events ADD COLUMN awaiting_sale text[], ADD COLUMN retry_job uuid;
CREATE INDEX webhook_events_awaiting_sale_idx ON webhook_events USING gin (awaiting_sale) WHERE awaiting_sale IS NOT NULL;
