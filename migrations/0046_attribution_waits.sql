-- A payment that carries our metadata but that no click, lead or customer matches yet (most of a
-- brand's payments: organic buyers checking out under their own customer key) was retried on the
-- queue's back-off, up to 8 times. It now costs one attempt and waits without a job: by the keys
-- that would attribute it (its customer key, click id, email hash), in the table where refunds
-- already wait for their sale, renamed for both. Recording a customer with one of those keys moves
-- the event's due time to now; when due (woken, or at the fallback time) it is queued once more,
-- and that attempt is its last.
ALTER TABLE sale_waiters RENAME TO event_waiters;
ALTER TABLE event_waiters RENAME COLUMN sale_key TO wait_key;
-- A refund waiting for its sale names the job that retries it; a payment waiting for its
-- attribution has no job (queued again when due).
ALTER TABLE event_waiters ALTER COLUMN retry_job DROP NOT NULL;
ALTER INDEX sale_waiters_pkey RENAME TO event_waiters_pkey;
ALTER INDEX sale_waiters_inbox_idx RENAME TO event_waiters_inbox_idx;

-- The event was queued again after its wait: its next unmatched attempt ends it.
ALTER TABLE webhook_events ADD COLUMN waited boolean NOT NULL DEFAULT false;
-- The due-check: events waiting for their attribution (ignored, no Stripe customer or Connect
-- account named, a due time), by due time.
CREATE INDEX webhook_events_attribution_due_idx ON webhook_events (wait_until)
  WHERE status = 'ignored' AND waiting_for IS NULL AND wait_until IS NOT NULL;
