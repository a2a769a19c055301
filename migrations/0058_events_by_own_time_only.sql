-- Activity and the assistant's recent events read the program's events by their own time
-- (tracking_events_program_own_time_idx, migration 0052); the set-up page's last event reads
-- per kind. Nothing reads the program's events by recorded time alone any more, and every click
-- writes each index of tracking_events: this one goes.
DROP INDEX IF EXISTS tracking_events_program_created_idx;
