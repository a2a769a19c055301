-- The intake's idempotency key in a table of its own, which nothing but the intake ever writes.
-- A redelivery's insert used to conflict on webhook_events' own unique key, and an INSERT that
-- meets a row another transaction has updated and not yet committed waits for that transaction:
-- a worker batch writing its events' outcomes (webhook_events rows) held every redelivery of
-- those events, and every new event sharing its statement, until it committed (or the intake's
-- lock timeout answered 503). A key row is only ever inserted, by the intake, and its insert is
-- short: a conflict here waits at most for another delivery of the same event to commit.
CREATE TABLE webhook_event_keys (
  -- Deleting an inbox row (only the benchmark does) frees its key.
  stripe_event_id text PRIMARY KEY REFERENCES webhook_events (stripe_event_id) ON DELETE CASCADE
);
INSERT INTO webhook_event_keys (stripe_event_id) SELECT stripe_event_id FROM webhook_events;
