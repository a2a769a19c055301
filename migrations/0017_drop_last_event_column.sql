-- "Last event received" is read from the inbox (webhook_events.received_at) since the intake
-- stopped updating the program row per event; the column has had no reader or writer since.
ALTER TABLE programs DROP COLUMN stripe_last_event_at;
