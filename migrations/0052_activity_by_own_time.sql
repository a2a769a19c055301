-- Activity lists, filters and orders events by their own time (issue 43): a sale when it happened
-- (its occurred_at, what the overview and the statements count), a click or a lead when it was
-- recorded. A sale's event carries its sale's time so that one index of the program's events
-- serves the period and the order (newest first, then by id) without reading the program's whole
-- history or sorting it. Clicks and leads leave it empty: their own time is created_at.
ALTER TABLE tracking_events ADD COLUMN sale_occurred_at timestamptz;

UPDATE tracking_events e SET sale_occurred_at = s.occurred_at
  FROM sales s
 WHERE s.id = e.sale_id AND e.kind = 'sale';

CREATE INDEX tracking_events_program_own_time_idx ON tracking_events (program_id, (coalesce(sale_occurred_at, created_at)), id);
