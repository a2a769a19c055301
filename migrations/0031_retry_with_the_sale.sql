-- A refund or dispute delivered before its sale is retried with back-off (2 s, doubling, up to
-- minutes). It now leaves, per id it looks its sale up by, the job that will retry it; the
-- statement that records a sale takes the waiters of its ids and moves their retries to now. A
-- table of its own, small whatever the inbox holds: the sale's statement reads it by key.
CREATE TABLE sale_waiters (
  program_id bigint NOT NULL,
  sale_key text NOT NULL,
  inbox_id bigint NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  retry_job uuid NOT NULL,
  PRIMARY KEY (program_id, sale_key, inbox_id)
);
CREATE INDEX sale_waiters_inbox_idx ON sale_waiters (inbox_id);
